/// The items of a HEIF file's `meta` box, read by this package rather than
/// by libheif: what each item is, its declared size and where its data is.
///
/// libheif 1.15 sizes the canvas of a derived image (a `grid` or an `iovl`
/// overlay) by the descriptor in the item's data, not by the item's `ispe`,
/// and then copies the coded tiles into it trusting that both agree; a file
/// where they do not (a fuzzing finding: a grid declaring 64×48 in `ispe`
/// and 16384×12544 in its descriptor) makes it allocate 800 MB and write
/// outside the canvas. Nothing in libheif's API exposes the descriptor, so
/// ``HEIFItemTable/checkDerivedImage(item:maxPixelCount:)`` reads it from
/// the boxes before any image data is decoded.
///
/// Only what those checks need is kept; every read is bounds-checked and a
/// malformed box is ``ImageError/undecodable(_:_:)``.
package struct HEIFItemTable {
    /// One item of `iinf`, with its properties and references gathered.
    package struct Item {
        /// The item's four-character type (`hvc1`, `grid`, `iovl`, `iden`, ...).
        package var type: UInt32 = 0
        /// The size from the item's `ispe` property, if it has one.
        package var declaredSize: PixelSize?
        /// The items this one is derived from (`dimg` references), in order.
        package var derivedFrom: [UInt32] = []
        /// The auxiliary images of this one (items with an `auxl` reference
        /// to it: its alpha plane, a depth map), which libheif decodes with it.
        package var auxiliaries: [UInt32] = []
        /// Where the item's data is (`iloc`).
        package var location: Location?
    }

    /// Where an item's data lies: its extents, in the file (construction
    /// method 0) or in the `idat` box (method 1).
    package struct Location {
        /// Whether the offsets count from the start of `idat`'s payload.
        package var inItemData: Bool
        /// (offset, length) of each extent; a length of 0 means "to the end".
        package var extents: [(offset: Int, length: Int)]
    }

    /// The primary item's ID (`pitm`).
    package private(set) var primaryID: UInt32?
    /// Every item that `iinf` lists, by ID.
    package private(set) var items: [UInt32: Item] = [:]
    /// The payload of the `idat` box, as a range of the file.
    private var itemData: Range<Int>?
    /// The file the table was read from.
    private let file: UnsafeRawBufferPointer

    /// The most items a file may list: far beyond any real grid (a 100 MP
    /// image in 512 px tiles has 400), low enough that a hostile count
    /// cannot make the tables large.
    package static let maxItems = 65_536

    /// The boxes of `meta` that may appear once.
    package static let singleBoxes: Set<UInt32> = [
        HEIFBoxCursor.fourCC("pitm"), HEIFBoxCursor.fourCC("iinf"), HEIFBoxCursor.fourCC("iloc"),
        HEIFBoxCursor.fourCC("idat"), HEIFBoxCursor.fourCC("iref"), HEIFBoxCursor.fourCC("iprp"),
    ]

    /// Reads the `meta` box of `file`.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` when a box this reader
    ///   needs is cut short or inconsistent.
    package init(reading file: UnsafeRawBufferPointer) throws(ImageError) {
        self.file = file
        var top = HEIFBoxCursor(file, range: 0..<file.count)
        var meta: Range<Int>?
        while let box = try top.nextBox() {
            if box.type == HEIFBoxCursor.fourCC("meta") { meta = box.payload; break }
        }
        guard let meta else { throw .undecodable(.heic, "no meta box") }
        var properties: [Item] = []
        var associations: [UInt32: [Int]] = [:]
        var children = HEIFBoxCursor(file, range: meta)
        try children.skip(4) // version and flags
        // A file this reader could read otherwise than libheif does is
        // refused: the checks hold only if both see the same items. So a
        // repeated box here (which one would libheif take?) is an error.
        var seen: Set<UInt32> = []
        while let box = try children.nextBox() {
            if Self.singleBoxes.contains(box.type), !seen.insert(box.type).inserted {
                throw .undecodable(.heic, "two \(HEIFBoxCursor.name(box.type)) boxes in meta")
            }
            var payload = HEIFBoxCursor(file, range: box.payload)
            switch box.type {
            case HEIFBoxCursor.fourCC("pitm"):
                let version = try payload.readUInt8()
                try payload.skip(3)
                primaryID = version == 0 ? UInt32(try payload.readUInt16()) : try payload.readUInt32()
            case HEIFBoxCursor.fourCC("iinf"):
                try readItemInfo(&payload)
            case HEIFBoxCursor.fourCC("iloc"):
                try readLocations(&payload)
            case HEIFBoxCursor.fourCC("idat"):
                itemData = box.payload
            case HEIFBoxCursor.fourCC("iref"):
                try readReferences(&payload)
            case HEIFBoxCursor.fourCC("iprp"):
                try readProperties(&payload, into: &properties, associations: &associations)
            default:
                break
            }
        }
        for (id, indices) in associations where items[id] != nil {
            let sizes = Set(indices.lazy.filter { $0 >= 1 && $0 <= properties.count }.compactMap { properties[$0 - 1].declaredSize })
            guard sizes.count <= 1 else { throw .undecodable(.heic, "item \(id) has \(sizes.count) different ispe sizes") }
            items[id]?.declaredSize = sizes.first
        }
    }

    /// The bytes of an item's data, when they are all inside the file.
    package func data(of item: Item) -> UnsafeRawBufferPointer? {
        guard let location = item.location, location.extents.count == 1, let extent = location.extents.first else { return nil }
        let base: Range<Int>
        if location.inItemData {
            guard let itemData else { return nil }
            base = itemData
        } else {
            base = 0..<file.count
        }
        let start = base.lowerBound.addingReportingOverflow(extent.offset)
        guard !start.overflow, start.partialValue <= base.upperBound else { return nil }
        let end = extent.length == 0 ? base.upperBound : start.partialValue.addingReportingOverflow(extent.length).partialValue
        guard end >= start.partialValue, end <= base.upperBound else { return nil }
        return UnsafeRawBufferPointer(rebasing: file[start.partialValue..<end])
    }

    private mutating func readItemInfo(_ payload: inout HEIFBoxCursor) throws(ImageError) {
        let version = try payload.readUInt8()
        try payload.skip(3)
        let count = version == 0 ? Int(try payload.readUInt16()) : Int(try payload.readUInt32())
        guard count <= Self.maxItems else { throw .undecodable(.heic, "iinf lists \(count) items") }
        // Every `infe` box is read and must agree with the count: libheif
        // 1.15 reads them all whatever the count says (a fuzzing finding
        // declared 1 item and carried a second entry typing the primary item
        // as a grid, which this reader, stopping at the count, never
        // checked), and two entries for one item are ambiguous.
        var typed: Set<UInt32> = []
        var entries = 0
        while let box = try payload.nextBox() {
            guard box.type == HEIFBoxCursor.fourCC("infe") else { continue }
            entries += 1
            guard entries <= count else { throw .undecodable(.heic, "iinf declares \(count) items and holds more") }
            var entry = HEIFBoxCursor(file, range: box.payload)
            let entryVersion = try entry.readUInt8()
            try entry.skip(3)
            // Versions 0 and 1 predate item types; they describe no image item.
            guard entryVersion >= 2 else { continue }
            let id = entryVersion == 2 ? UInt32(try entry.readUInt16()) : try entry.readUInt32()
            try entry.skip(2) // item_protection_index
            guard typed.insert(id).inserted else { throw .undecodable(.heic, "two infe entries for item \(id)") }
            items[id, default: Item()].type = try entry.readUInt32()
        }
        guard entries == count else { throw .undecodable(.heic, "iinf declares \(count) items and holds \(entries)") }
    }

    private mutating func readLocations(_ payload: inout HEIFBoxCursor) throws(ImageError) {
        let version = try payload.readUInt8()
        try payload.skip(3)
        guard version <= 2 else { throw .undecodable(.heic, "iloc version \(version)") }
        let sizes = try payload.readUInt16()
        let offsetSize = Int(sizes >> 12), lengthSize = Int(sizes >> 8 & 0xF)
        let baseOffsetSize = Int(sizes >> 4 & 0xF), indexSize = version >= 1 ? Int(sizes & 0xF) : 0
        let count = version < 2 ? Int(try payload.readUInt16()) : Int(try payload.readUInt32())
        guard count <= Self.maxItems else { throw .undecodable(.heic, "iloc lists \(count) items") }
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try payload.readUInt16()) : try payload.readUInt32()
            var method = 0
            if version >= 1 { method = Int(try payload.readUInt16() & 0xF) }
            try payload.skip(2) // data_reference_index
            let baseOffset = try payload.readSized(baseOffsetSize)
            let extentCount = Int(try payload.readUInt16())
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { _ = try payload.readSized(indexSize) }
                let offset = try payload.readSized(offsetSize)
                let length = try payload.readSized(lengthSize)
                let sum = baseOffset.addingReportingOverflow(offset)
                guard !sum.overflow else { throw .undecodable(.heic, "iloc offset overflows") }
                if extents.count < 16 { extents.append((sum.partialValue, length)) }
            }
            // Method 2 (data in another item) is left to libheif: a derived
            // image stored that way has no descriptor this reader can check,
            // so `checkDerivedImage` refuses it.
            guard method <= 1 else { continue }
            items[id, default: Item()].location = Location(inItemData: method == 1, extents: extents)
        }
    }

    private mutating func readReferences(_ payload: inout HEIFBoxCursor) throws(ImageError) {
        let version = try payload.readUInt8()
        try payload.skip(3)
        var references = 0
        while let box = try payload.nextBox() {
            let derived = box.type == HEIFBoxCursor.fourCC("dimg")
            guard derived || box.type == HEIFBoxCursor.fourCC("auxl") else { continue }
            var reference = HEIFBoxCursor(file, range: box.payload)
            let from = version == 0 ? UInt32(try reference.readUInt16()) : try reference.readUInt32()
            let count = Int(try reference.readUInt16())
            references += count
            guard references <= Self.maxItems else { throw .undecodable(.heic, "iref holds more than \(Self.maxItems) references") }
            var targets: [UInt32] = []
            targets.reserveCapacity(min(count, 1024))
            for _ in 0..<count {
                targets.append(version == 0 ? UInt32(try reference.readUInt16()) : try reference.readUInt32())
            }
            if derived {
                items[from, default: Item()].derivedFrom += targets
            } else {
                // `from` is an auxiliary image of each target.
                for target in targets { items[target, default: Item()].auxiliaries.append(from) }
            }
        }
    }

    private func readProperties(
        _ payload: inout HEIFBoxCursor, into properties: inout [Item], associations: inout [UInt32: [Int]]
    ) throws(ImageError) {
        var sawPropertyContainer = false
        while let box = try payload.nextBox() {
            // Several `ipma` boxes are allowed (their associations add up);
            // a second `ipco` would renumber the properties.
            if box.type == HEIFBoxCursor.fourCC("ipco") {
                guard !sawPropertyContainer else { throw .undecodable(.heic, "two ipco boxes") }
                sawPropertyContainer = true
            }
            var inner = HEIFBoxCursor(file, range: box.payload)
            if box.type == HEIFBoxCursor.fourCC("ipco") {
                while let property = try inner.nextBox() {
                    guard properties.count < Self.maxItems else { throw .undecodable(.heic, "too many properties") }
                    var item = Item()
                    if property.type == HEIFBoxCursor.fourCC("ispe") {
                        var ispe = HEIFBoxCursor(file, range: property.payload)
                        try ispe.skip(4)
                        let width = Int(try ispe.readUInt32()), height = Int(try ispe.readUInt32())
                        item.declaredSize = PixelSize(width: width, height: height)
                    }
                    properties.append(item)
                }
            } else if box.type == HEIFBoxCursor.fourCC("ipma") {
                let version = try inner.readUInt8()
                let flags = try inner.readUInt24()
                let count = Int(try inner.readUInt32())
                guard count <= Self.maxItems else { throw .undecodable(.heic, "ipma lists \(count) items") }
                for _ in 0..<count {
                    let id = version == 0 ? UInt32(try inner.readUInt16()) : try inner.readUInt32()
                    let entries = Int(try inner.readUInt8())
                    var indices: [Int] = []
                    for _ in 0..<entries {
                        // The top bit is "essential"; the rest is a 1-based index into ipco.
                        if flags & 1 != 0 {
                            indices.append(Int(try inner.readUInt16() & 0x7FFF))
                        } else {
                            indices.append(Int(try inner.readUInt8() & 0x7F))
                        }
                    }
                    associations[id, default: []] += indices
                }
            }
        }
    }
}
