import AsyncWebImage

/// A pass over an SVG document's markup, before any of it reaches librsvg,
/// that measures what rendering it would cost and refuses what the coder
/// never lets librsvg see: entity declarations (internal ones expand — the
/// "billion laughs" — and external ones name files or URLs).
///
/// It reads tags, comments, CDATA sections, processing instructions and the
/// doctype, with quoted attribute values, once from start to end; then it
/// walks the elements and the references between them (`href`, `url(#…)`)
/// once. Its work is linear in the bytes whatever they hold.
///
/// What it measures:
/// - elements and their nesting, as written;
/// - **rendered elements**: each element once, plus, for every reference
///   (`<use>`, a pattern or marker, a mask, `filter`, `feImage`), the
///   elements its target brings in, counted again each time — the fan-out
///   of `<use>` of `<use>` is a product, and this is it;
/// - **reference depth**: the longest chain of references one inside another;
/// - **filter work**: the filter primitives applied, each application
///   counted, weighted by its cost per pixel (a turbulence by its octaves,
///   a convolution by its kernel, a morphology by its radius). Times the
///   raster's pixels, it bounds the pixels the filters process, which the
///   coder checks once it knows the raster's size.
///
/// A `url(#…)` in a `<style>` sheet could apply to any element: it counts
/// as applied to every element of the document. A reference cycle is
/// refused.
struct SVGStructureScan {
    /// What the scan refuses past.
    struct Limits {
        var elements = Int.max
        var depth = Int.max
        var renderedElements = Int.max
        var referenceDepth = Int.max
        var filterPrimitives = Int.max
    }

    /// Elements in the document.
    private(set) var elementCount = 0
    /// The deepest nesting of elements.
    private(set) var maximumDepth = 0
    /// Elements a render draws, references expanded.
    private(set) var renderedElementCount = 0
    /// The longest chain of references.
    private(set) var referenceDepth = 0
    /// Filter primitives applied, weighted by cost: per pixel of the raster.
    private(set) var filterWork = 0
    /// The root element's `width`, `height` and `viewBox` in pixels (96 dpi),
    /// as librsvg reads them for the intrinsic size; `nil` where absent or relative.
    private(set) var declaredWidth: Double?
    private(set) var declaredHeight: Double?
    private(set) var viewBoxSize: (width: Double, height: Double)?

    /// One element: where it sits and what it points at.
    private struct Element {
        var parent: Int
        var children: [Int] = []
        /// `#id` targets of its `href` and `url(#…)` references.
        var references: [Substring] = []
        /// Its own cost as a filter primitive (0 unless it is one, in a `<filter>`).
        var primitiveWork = 0
        /// Whether it is a `<filter>`, whose children are its primitives.
        var isFilter = false
    }

    /// Scans `bytes` with the two limits of the markup alone (the existing form).
    init(_ bytes: UnsafeRawBufferPointer, maxElements: Int, maxDepth: Int) throws(ImageError) {
        try self.init(bytes, limits: Limits(elements: maxElements, depth: maxDepth))
    }

    /// Scans `bytes`.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for an entity declaration
    ///   or a reference cycle; ``ImageError/invalidImage(_:)`` past the
    ///   element count or nesting; ``ImageError/tooLarge(_:limit:actual:)``
    ///   past the rendered elements, the reference depth or the filter primitives.
    init(_ bytes: UnsafeRawBufferPointer, limits: Limits) throws(ImageError) {
        let text = String(decoding: bytes, as: UTF8.self)
        var elements: [Element] = []
        var ids: [Substring: Int] = [:]
        var sheetReferences: [Substring] = []
        try Self.parse(text.utf8[...], limits: limits, into: &elements, ids: &ids, sheetReferences: &sheetReferences, scan: &self)
        try measure(elements, ids: ids, sheetReferences: sheetReferences, limits: limits)
    }

    // MARK: Markup

    private static func parse(
        _ bytes: Substring.UTF8View, limits: Limits, into elements: inout [Element], ids: inout [Substring: Int],
        sheetReferences: inout [Substring], scan: inout SVGStructureScan
    ) throws(ImageError) {
        let text = Substring(bytes)
        var index = bytes.startIndex
        var stack: [Int] = []
        var filterDepth = 0
        /// Whether `bytes` holds `prefix` at `position`.
        func starts(_ prefix: StaticString, at position: Substring.UTF8View.Index) -> Bool {
            prefix.withUTF8Buffer { prefix in
                var cursor = position
                for byte in prefix {
                    guard cursor < bytes.endIndex, bytes[cursor] == byte else { return false }
                    cursor = bytes.index(after: cursor)
                }
                return true
            }
        }
        func skip(past terminator: StaticString, from position: Substring.UTF8View.Index) -> Substring.UTF8View.Index {
            var cursor = position
            while cursor < bytes.endIndex, !starts(terminator, at: cursor) { cursor = bytes.index(after: cursor) }
            return cursor < bytes.endIndex ? bytes.index(cursor, offsetBy: terminator.utf8CodeUnitCount) : cursor
        }
        let entity = ImageError.undecodable(.svg, "an entity declaration (refused: entities can expand or read files)")
        while index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "<") else {
                index = bytes.index(after: index)
                continue
            }
            if starts("<!--", at: index) {
                index = skip(past: "-->", from: bytes.index(index, offsetBy: 4))
            } else if starts("<![CDATA[", at: index) {
                index = skip(past: "]]>", from: bytes.index(index, offsetBy: 9))
            } else if starts("<!ENTITY", at: index) {
                throw entity
            } else if starts("<!", at: index) {
                // A doctype; its internal subset may declare entities.
                var cursor = bytes.index(index, offsetBy: 2)
                var bracket = 0
                while cursor < bytes.endIndex {
                    if starts("<!ENTITY", at: cursor) { throw entity }
                    let byte = bytes[cursor]
                    if byte == UInt8(ascii: "[") { bracket += 1 }
                    if byte == UInt8(ascii: "]") { bracket -= 1 }
                    cursor = bytes.index(after: cursor)
                    if byte == UInt8(ascii: ">") && bracket <= 0 { break }
                }
                index = cursor
            } else if starts("<?", at: index) {
                index = skip(past: "?>", from: bytes.index(index, offsetBy: 2))
            } else if starts("</", at: index) {
                if let closed = stack.popLast(), elements[closed].isFilter { filterDepth -= 1 }
                index = skip(past: ">", from: bytes.index(index, offsetBy: 2))
            } else {
                // A start tag: its name, then attributes with quoted values.
                var cursor = bytes.index(after: index)
                let nameStart = cursor
                while cursor < bytes.endIndex, !Self.endsName(bytes[cursor]) { cursor = bytes.index(after: cursor) }
                let name = Self.localName(text[nameStart..<cursor])
                var attributes: [(name: Substring, value: Substring)] = []
                var selfClosing = false
                while cursor < bytes.endIndex {
                    let byte = bytes[cursor]
                    if byte == UInt8(ascii: ">") {
                        selfClosing = cursor > nameStart && bytes[bytes.index(before: cursor)] == UInt8(ascii: "/")
                        break
                    }
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        // A value without a name before it: skip it whole.
                        cursor = Self.skipQuoted(bytes, from: cursor)
                        continue
                    }
                    guard !Self.isSpace(byte), byte != UInt8(ascii: "/"), byte != UInt8(ascii: "=") else {
                        cursor = bytes.index(after: cursor)
                        continue
                    }
                    let attributeStart = cursor
                    while cursor < bytes.endIndex, !Self.endsName(bytes[cursor]), bytes[cursor] != UInt8(ascii: "=") {
                        cursor = bytes.index(after: cursor)
                    }
                    let attributeName = text[attributeStart..<cursor]
                    while cursor < bytes.endIndex, Self.isSpace(bytes[cursor]) { cursor = bytes.index(after: cursor) }
                    guard cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "=") else { continue }
                    cursor = bytes.index(after: cursor)
                    while cursor < bytes.endIndex, Self.isSpace(bytes[cursor]) { cursor = bytes.index(after: cursor) }
                    guard cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") else { continue }
                    let end = Self.skipQuoted(bytes, from: cursor)
                    let valueStart = bytes.index(after: cursor)
                    let valueEnd = end > valueStart && end <= bytes.endIndex ? bytes.index(before: end) : valueStart
                    attributes.append((Self.localName(attributeName), text[valueStart..<max(valueStart, valueEnd)]))
                    cursor = end
                }
                index = cursor < bytes.endIndex ? bytes.index(after: cursor) : cursor
                scan.elementCount += 1
                guard scan.elementCount <= limits.elements else {
                    throw .invalidImage("an SVG of more than \(limits.elements) elements")
                }
                let parent = stack.last ?? -1
                var element = Element(parent: parent, isFilter: name == "filter")
                for attribute in attributes {
                    if attribute.name == "id", ids[attribute.value] == nil {
                        ids[attribute.value] = elements.count
                    } else if attribute.name == "href", attribute.value.hasPrefix("#") {
                        element.references.append(attribute.value.dropFirst())
                    }
                    element.references += Self.urlReferences(in: attribute.value)
                }
                if filterDepth > 0, parent >= 0, elements[parent].isFilter, name.hasPrefix("fe") {
                    element.primitiveWork = Self.primitiveWork(name, attributes)
                }
                if elements.isEmpty { scan.readRootSize(attributes) }
                let position = elements.count
                if parent >= 0 { elements[parent].children.append(position) }
                elements.append(element)
                if name == "style", !selfClosing {
                    // The sheet's text, CDATA included, up to its end tag.
                    let sheetEnd = Self.find("</", in: bytes, from: index)
                    sheetReferences += Self.urlReferences(in: text[index..<sheetEnd])
                }
                if !selfClosing {
                    stack.append(position)
                    if name == "filter" { filterDepth += 1 }
                    scan.maximumDepth = max(scan.maximumDepth, stack.count)
                    guard stack.count <= limits.depth else { throw .invalidImage("an SVG nesting elements more than \(limits.depth) deep") }
                }
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
    }

    /// The name without its namespace prefix (`svg:use` is `use`, `xlink:href` is `href`).
    private static func localName(_ name: Substring) -> Substring {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return name[name.index(after: colon)...]
    }

    /// The index just past the quoted value that starts at `start`.
    private static func skipQuoted(_ bytes: Substring.UTF8View, from start: Substring.UTF8View.Index) -> Substring.UTF8View.Index {
        let quote = bytes[start]
        var cursor = bytes.index(after: start)
        while cursor < bytes.endIndex, bytes[cursor] != quote { cursor = bytes.index(after: cursor) }
        return cursor < bytes.endIndex ? bytes.index(after: cursor) : cursor
    }

    private static func find(_ prefix: StaticString, in bytes: Substring.UTF8View, from start: Substring.UTF8View.Index) -> Substring.UTF8View.Index {
        var cursor = start
        let first = prefix.withUTF8Buffer { $0[0] }
        let second = prefix.withUTF8Buffer { $0[1] }
        while cursor < bytes.endIndex {
            if bytes[cursor] == first, bytes.index(after: cursor) < bytes.endIndex, bytes[bytes.index(after: cursor)] == second { return cursor }
            cursor = bytes.index(after: cursor)
        }
        return cursor
    }

    /// The `#id`s of every `url(#id)` in `value` (`fill`, `filter`, `mask`,
    /// `style`, a sheet…), `url` in any case as CSS reads it; one pass.
    private static func urlReferences(in value: Substring) -> [Substring] {
        var found: [Substring] = []
        let bytes = value.utf8
        var cursor = bytes.startIndex
        func lowered(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte }
        while cursor < bytes.endIndex {
            guard lowered(bytes[cursor]) == UInt8(ascii: "u"), bytes.distance(from: cursor, to: bytes.endIndex) >= 5,
                  lowered(bytes[bytes.index(cursor, offsetBy: 1)]) == UInt8(ascii: "r"),
                  lowered(bytes[bytes.index(cursor, offsetBy: 2)]) == UInt8(ascii: "l"),
                  bytes[bytes.index(cursor, offsetBy: 3)] == UInt8(ascii: "(") else {
                cursor = bytes.index(after: cursor)
                continue
            }
            cursor = bytes.index(cursor, offsetBy: 4)
            while cursor < bytes.endIndex, [0x20, 0x22, 0x27].contains(bytes[cursor]) { cursor = bytes.index(after: cursor) }
            guard cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "#") else { continue }
            let idStart = bytes.index(after: cursor)
            var idEnd = idStart
            while idEnd < bytes.endIndex, ![0x29, 0x20, 0x22, 0x27].contains(bytes[idEnd]) { idEnd = bytes.index(after: idEnd) }
            if idEnd > idStart { found.append(value[idStart..<idEnd]) }
            cursor = idEnd
        }
        return found
    }

    // MARK: Filter primitives

    /// What one application of primitive `name` costs per raster pixel, in
    /// units of a blend (measured with librsvg 2.54: a Gaussian blur of any
    /// deviation costs about one, a turbulence a few plus one per octave, a
    /// convolution one per nine kernel entries, a morphology about one per
    /// pixel of radius, a displacement map eight).
    private static func primitiveWork(_ name: Substring, _ attributes: [(name: Substring, value: Substring)]) -> Int {
        func numbers(_ attribute: Substring) -> [Double] {
            guard let value = attributes.first(where: { $0.name == attribute })?.value else { return [] }
            return value.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }.filter(\.isFinite)
        }
        func count(_ value: Double?, default fallback: Double) -> Int {
            Int(min(1e9, max(0, (value ?? fallback).rounded(.up))))
        }
        switch name {
        case "feTurbulence":
            return 4 + count(numbers("numOctaves").first, default: 1)
        case "feConvolveMatrix":
            let order = numbers("order")
            let x = count(order.first, default: 3), y = count(order.count > 1 ? order[1] : order.first, default: 3)
            return 1 + x.multipliedReportingOverflow(by: y).partialValue / 9
        case "feMorphology":
            let radius = numbers("radius")
            let x = count(radius.first, default: 0), y = count(radius.count > 1 ? radius[1] : radius.first, default: 0)
            return 10 + x + y
        case "feDisplacementMap":
            return 8
        case "feDropShadow":
            return 3
        case "feGaussianBlur", "feDiffuseLighting", "feSpecularLighting":
            return 2
        default:
            return 1
        }
    }

    // MARK: Root size

    private mutating func readRootSize(_ attributes: [(name: Substring, value: Substring)]) {
        for attribute in attributes {
            switch attribute.name {
            case "width": declaredWidth = Self.pixels(attribute.value)
            case "height": declaredHeight = Self.pixels(attribute.value)
            case "viewBox":
                let parts = attribute.value.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
                if parts.count == 4, parts[2].isFinite, parts[3].isFinite, parts[2] > 0, parts[3] > 0 { viewBoxSize = (parts[2], parts[3]) }
            default: break
            }
        }
    }

    /// A length in pixels at 96 dpi (librsvg's units; `em` at its 12-point
    /// default font size), or `nil` for a percentage or what is no length.
    private static func pixels(_ value: Substring) -> Double? {
        var text = String(value)
        while text.hasPrefix(" ") { text.removeFirst() }
        while text.hasSuffix(" ") { text.removeLast() }
        let units: [(String, Double)] = [
            ("px", 1), ("pt", 96.0 / 72), ("pc", 16), ("mm", 96 / 25.4), ("cm", 96 / 2.54), ("in", 96), ("em", 16), ("ex", 8),
        ]
        for (unit, factor) in units where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * factor }
        }
        return text.hasSuffix("%") ? nil : Double(text)
    }

    // MARK: References

    /// Rendered elements, reference depth and filter work, from the root,
    /// over the tree and its references, each element's figures computed
    /// once (children and targets first, without recursion).
    private mutating func measure(_ elements: [Element], ids: [Substring: Int], sheetReferences: [Substring], limits: Limits) throws(ImageError) {
        guard !elements.isEmpty else { return }
        /// Per element: rendered elements, reference depth, filter work.
        var rendered = [Int](repeating: 0, count: elements.count)
        var depth = [Int](repeating: 0, count: elements.count)
        var work = [Int](repeating: 0, count: elements.count)
        // 0: not visited, 1: on the path being walked, 2: done.
        var state = [UInt8](repeating: 0, count: elements.count)
        func targets(_ element: Int) -> [Int] {
            elements[element].references.compactMap { ids[$0] }
        }
        let cycle = ImageError.undecodable(.svg, "references that form a cycle")
        for root in elements.indices where elements[root].parent < 0 && state[root] == 0 {
            // The walk's path: each element with its edges (children, then targets) and the next to follow.
            var path: [(element: Int, edges: [Int], next: Int)] = [(root, elements[root].children + targets(root), 0)]
            state[root] = 1
            while let (element, edges, next) = path.last {
                if next < edges.count {
                    path[path.count - 1].next += 1
                    let edge = edges[next]
                    switch state[edge] {
                    case 0:
                        state[edge] = 1
                        path.append((edge, elements[edge].children + targets(edge), 0))
                    case 1:
                        throw cycle
                    default:
                        break
                    }
                    continue
                }
                // Every child and target is done: this element's figures.
                var elementCount = 1
                var elementDepth = 0
                var elementWork = elements[element].primitiveWork
                for child in elements[element].children {
                    elementCount = Self.add(elementCount, rendered[child])
                    elementDepth = max(elementDepth, depth[child])
                    // A filter's primitives run where it is applied, not where it is defined.
                    if !elements[child].isFilter { elementWork = Self.add(elementWork, work[child]) }
                }
                for target in targets(element) {
                    elementCount = Self.add(elementCount, rendered[target])
                    elementDepth = max(elementDepth, depth[target] + 1)
                    elementWork = Self.add(elementWork, work[target])
                }
                rendered[element] = elementCount
                depth[element] = elementDepth
                work[element] = elementWork
                // Checked as each element is done: a product past a limit stops the walk at once.
                try Self.check(rendered: elementCount, depth: elementDepth, work: elementWork, limits: limits)
                state[element] = 2
                path.removeLast()
            }
        }
        // The document: its roots (one, in a well-formed one), and what a
        // style sheet's references could bring to each of its elements.
        let roots = elements.indices.filter { elements[$0].parent < 0 }
        renderedElementCount = roots.reduce(0) { Self.add($0, rendered[$1]) }
        referenceDepth = roots.map { depth[$0] }.max() ?? 0
        filterWork = roots.reduce(0) { Self.add($0, work[$1]) }
        for target in sheetReferences.compactMap({ ids[$0] }) {
            renderedElementCount = Self.add(renderedElementCount, Self.multiply(elementCount, rendered[target]))
            referenceDepth = max(referenceDepth, depth[target] + 1)
            filterWork = Self.add(filterWork, Self.multiply(elementCount, work[target]))
        }
        try Self.check(rendered: renderedElementCount, depth: referenceDepth, work: filterWork, limits: limits)
    }

    /// Refuses figures past `limits`.
    private static func check(rendered: Int, depth: Int, work: Int, limits: Limits) throws(ImageError) {
        guard rendered <= limits.renderedElements else {
            throw .tooLarge(.renderedElements, limit: Int64(limits.renderedElements), actual: nil)
        }
        guard depth <= limits.referenceDepth else {
            throw .tooLarge(.referenceDepth, limit: Int64(limits.referenceDepth), actual: Int64(depth))
        }
        guard work <= limits.filterPrimitives else {
            throw .tooLarge(.filterPrimitives, limit: Int64(limits.filterPrimitives), actual: nil)
        }
    }

    /// Sums and products that stop at a bound far past every limit instead of overflowing.
    private static let saturation = Int.max / 4

    private static func add(_ a: Int, _ b: Int) -> Int {
        min(saturation, a + b)
    }

    private static func multiply(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? saturation : min(saturation, product)
    }
}
