import AsyncWebImage

/// A pass over an SVG document's markup, before librsvg parses it, that
/// counts elements and their nesting and refuses what the coder never
/// lets librsvg see: entity declarations (internal ones expand — the
/// "billion laughs" — and external ones name files or URLs).
///
/// It reads tags, comments, CDATA sections, processing instructions and
/// the doctype, with quoted attribute values, once from start to end: its
/// work is linear in the bytes whatever they hold.
struct SVGStructureScan {
    /// Elements in the document.
    private(set) var elementCount = 0
    /// The deepest nesting of elements.
    private(set) var maximumDepth = 0

    /// Scans `bytes`.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for an entity declaration;
    ///   ``ImageError/invalidImage(_:)`` past `maxElements` or `maxDepth`.
    init(_ bytes: UnsafeRawBufferPointer, maxElements: Int, maxDepth: Int) throws(ImageError) {
        var index = 0
        var depth = 0
        let count = bytes.count
        func starts(_ text: StaticString, at offset: Int) -> Bool {
            text.withUTF8Buffer { prefix in
                offset + prefix.count <= count && (0..<prefix.count).allSatisfy { bytes[offset + $0] == prefix[$0] }
            }
        }
        func skip(past text: StaticString, from offset: Int) -> Int {
            var position = offset
            while position < count, !starts(text, at: position) { position += 1 }
            return min(count, position + text.utf8CodeUnitCount)
        }
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if starts("<!--", at: index) {
                index = skip(past: "-->", from: index + 4)
            } else if starts("<![CDATA[", at: index) {
                index = skip(past: "]]>", from: index + 9)
            } else if starts("<!ENTITY", at: index) {
                throw .undecodable(.svg, "an entity declaration (refused: entities can expand or read files)")
            } else if starts("<!", at: index) {
                // A doctype; its internal subset may declare entities.
                var position = index + 2
                var bracket = 0
                while position < count {
                    if starts("<!ENTITY", at: position) {
                        throw .undecodable(.svg, "an entity declaration (refused: entities can expand or read files)")
                    }
                    let byte = bytes[position]
                    if byte == UInt8(ascii: "[") { bracket += 1 }
                    if byte == UInt8(ascii: "]") { bracket -= 1 }
                    position += 1
                    if byte == UInt8(ascii: ">") && bracket <= 0 { break }
                }
                index = position
            } else if starts("<?", at: index) {
                index = skip(past: "?>", from: index + 2)
            } else if starts("</", at: index) {
                depth = max(0, depth - 1)
                index = skip(past: ">", from: index + 2)
            } else {
                // An element's start tag: skip its attributes, quotes included.
                var position = index + 1
                var quote: UInt8?
                var selfClosing = false
                while position < count {
                    let byte = bytes[position]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        selfClosing = bytes[position - 1] == UInt8(ascii: "/")
                        break
                    }
                    position += 1
                }
                index = position + 1
                elementCount += 1
                guard elementCount <= maxElements else {
                    throw .invalidImage("an SVG of more than \(maxElements) elements")
                }
                if !selfClosing {
                    depth += 1
                    maximumDepth = max(maximumDepth, depth)
                    guard depth <= maxDepth else { throw .invalidImage("an SVG nesting elements more than \(maxDepth) deep") }
                }
            }
        }
    }
}
