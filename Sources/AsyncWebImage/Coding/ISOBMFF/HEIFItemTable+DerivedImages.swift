extension HEIFItemTable {
    /// Checks every image libheif decodes to build an image item — the
    /// primary one unless `id` names another (an embedded thumbnail): the
    /// item, the items it is derived from and its auxiliary images (alpha,
    /// depth), and theirs, before libheif decodes anything.
    ///
    /// libheif 1.15 follows these references without looking for cycles:
    /// a fuzzing finding whose alpha image was a grid tiled with the image
    /// itself made it recurse until the stack overflowed. A reference back
    /// to an item being built, or a chain deeper than ``maxDerivationDepth``,
    /// is refused.
    ///
    /// Each derived image (a `grid` of tiles, an `iovl` overlay or an `iden`
    /// transform) must describe what libheif will build consistently. For a
    /// grid: the descriptor's output size equals the item's `ispe` and is
    /// within `maxPixelCount`; there is one `dimg` tile per cell; every tile
    /// has the same declared size, within the limit, and the tiles cover the
    /// output without a whole spare row or column (ISO/IEC 23008-12
    /// §6.6.2.3.1). For an overlay: its canvas equals its `ispe` and is
    /// within the limit. For `iden`: one source, whose size (before
    /// transforms) has the pixel count of the item's own.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` for a canvas or a
    ///   tile over the limit, ``ImageError/undecodable(_:_:)`` for anything
    ///   inconsistent.
    package func checkDerivedImage(item id: UInt32? = nil, maxPixelCount: Int) throws(ImageError) {
        guard let id = id ?? primaryID else { return }
        var building: Set<UInt32> = []
        var checked: Set<UInt32> = []
        try checkImage(id, depth: 0, building: &building, checked: &checked, maxPixelCount: maxPixelCount)
    }

    /// How many derivations deep an image may be built: real files use two
    /// (a grid of coded tiles, its alpha a grid too); this leaves room.
    package static let maxDerivationDepth = 8

    /// Checks `id` and, depth first, what it is built from; `building` holds
    /// the items on the current path (a repeat is a cycle), `checked` those
    /// already found sound (an item shared by two parents is checked once).
    private func checkImage(
        _ id: UInt32, depth: Int, building: inout Set<UInt32>, checked: inout Set<UInt32>, maxPixelCount: Int
    ) throws(ImageError) {
        guard !checked.contains(id), let item = items[id] else { return }
        guard depth <= Self.maxDerivationDepth else {
            throw .undecodable(.heic, "images derived more than \(Self.maxDerivationDepth) levels deep")
        }
        guard building.insert(id).inserted else { throw .undecodable(.heic, "item \(id) is built from itself") }
        try checkDerivation(of: item, maxPixelCount: maxPixelCount)
        for source in item.derivedFrom + item.auxiliaries {
            try checkImage(source, depth: depth + 1, building: &building, checked: &checked, maxPixelCount: maxPixelCount)
        }
        building.remove(id)
        checked.insert(id)
    }

    /// The checks of one derived item, by its type (none for a coded one).
    private func checkDerivation(of primary: Item, maxPixelCount: Int) throws(ImageError) {
        switch primary.type {
        case HEIFBoxCursor.fourCC("grid"):
            try checkGrid(primary, maxPixelCount: maxPixelCount)
        case HEIFBoxCursor.fourCC("iovl"):
            let canvas = try descriptorSize(of: primary, fixedFieldBytes: 10, kind: "overlay")
            try Self.check(canvas, matches: primary, maxPixelCount: maxPixelCount, kind: "overlay")
        case HEIFBoxCursor.fourCC("iden"):
            guard primary.derivedFrom.count == 1, let source = items[primary.derivedFrom[0]] else {
                throw .undecodable(.heic, "an iden image needs exactly one source")
            }
            guard source.type != HEIFBoxCursor.fourCC("iden") else {
                throw .undecodable(.heic, "an iden image derived from another")
            }
            if let own = primary.declaredSize, let coded = source.declaredSize, own.pixelCount != coded.pixelCount {
                throw .undecodable(.heic, "iden declares \(own) over a \(coded) source")
            }
        default:
            break
        }
    }

    private func checkGrid(_ grid: Item, maxPixelCount: Int) throws(ImageError) {
        guard let data = data(of: grid), data.count >= 8 else {
            throw .undecodable(.heic, "grid descriptor missing or outside its box")
        }
        let rows = Int(data[2]) + 1, columns = Int(data[3]) + 1
        let output = try descriptorSize(of: grid, fixedFieldBytes: 4, kind: "grid")
        try Self.check(output, matches: grid, maxPixelCount: maxPixelCount, kind: "grid")
        guard grid.derivedFrom.count == rows * columns else {
            throw .undecodable(.heic, "grid of \(rows)×\(columns) cells has \(grid.derivedFrom.count) tiles")
        }
        var tileSize: PixelSize?
        for id in grid.derivedFrom {
            guard let tile = items[id], let size = tile.declaredSize else {
                throw .undecodable(.heic, "grid tile \(id) has no declared size")
            }
            guard tile.type != HEIFBoxCursor.fourCC("grid") else { throw .undecodable(.heic, "a grid tile is a grid") }
            if let tileSize, tileSize != size {
                throw .undecodable(.heic, "grid tiles of different sizes (\(tileSize), \(size))")
            }
            tileSize = size
        }
        guard let tileSize, tileSize.width > 0, tileSize.height > 0 else {
            throw .undecodable(.heic, "grid has no tiles")
        }
        if tileSize.pixelCount > maxPixelCount {
            throw .tooLarge(.pixels, limit: Int64(maxPixelCount), actual: Int64(clamping: tileSize.pixelCount))
        }
        let covered = PixelSize(width: tileSize.width * columns, height: tileSize.height * rows)
        guard covered.width >= output.width, covered.height >= output.height,
              covered.width - tileSize.width < output.width, covered.height - tileSize.height < output.height
        else {
            throw .undecodable(.heic, "\(rows)×\(columns) tiles of \(tileSize) do not fit a \(output) grid")
        }
    }

    /// The output size in a grid or overlay descriptor: version, flags
    /// (bit 0: 32-bit fields), `fixedFieldBytes` − 2 more bytes (a grid's
    /// rows and columns; an overlay's fill colour is 8 bytes after the
    /// flags), then width and height.
    private func descriptorSize(of item: Item, fixedFieldBytes: Int, kind: String) throws(ImageError) -> PixelSize {
        guard let data = data(of: item), data.count >= 2 else {
            throw .undecodable(.heic, "\(kind) descriptor missing or outside its box")
        }
        var cursor = HEIFBoxCursor(data, range: 0..<data.count)
        try cursor.skip(1)
        let wide = try cursor.readUInt8() & 1 != 0
        try cursor.skip(fixedFieldBytes - 2)
        let width = wide ? Int(try cursor.readUInt32()) : Int(try cursor.readUInt16())
        let height = wide ? Int(try cursor.readUInt32()) : Int(try cursor.readUInt16())
        return PixelSize(width: width, height: height)
    }

    private static func check(_ size: PixelSize, matches item: Item, maxPixelCount: Int, kind: String) throws(ImageError) {
        guard size.width > 0, size.height > 0 else { throw .undecodable(.heic, "\(kind) of \(size)") }
        if size.pixelCount > maxPixelCount {
            throw .tooLarge(.pixels, limit: Int64(maxPixelCount), actual: Int64(clamping: size.pixelCount))
        }
        guard let declared = item.declaredSize, declared == size else {
            throw .undecodable(.heic, "\(kind) builds \(size) but declares \(item.declaredSize.map { "\($0)" } ?? "no size")")
        }
    }
}
