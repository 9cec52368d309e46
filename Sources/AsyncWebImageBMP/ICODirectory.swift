import AsyncWebImage

/// The directory of an ICO or CUR file: one entry per stored image, each
/// a PNG or a headerless bitmap (its height doubled for the AND mask).
struct ICODirectory {
    /// One image as the directory declares it.
    struct Entry: Equatable {
        /// Declared size (a stored 0 means 256).
        var width: Int
        var height: Int
        /// Declared bits per pixel (0 when the writer left it out).
        var bitsPerPixel: Int
        /// Where the image's bytes lie in the file.
        var range: Range<Int>
    }

    let entries: [Entry]
    /// Whether the file is a cursor (type 2) rather than an icon.
    let isCursor: Bool

    /// Reads the directory; every entry's data must lie inside the file.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for a directory that is not an
    ///   icon's or points outside the data.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard bytes.count >= 6, bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || bytes[2] == 2, bytes[3] == 0 else {
            throw .undecodable(.ico, "not an ICO or CUR file")
        }
        isCursor = bytes[2] == 2
        let count = Int(BMPHeader.u16(bytes, 4))
        guard count > 0 else { throw .undecodable(.ico, "an icon directory of no images") }
        guard 6 + 16 * count <= bytes.count else { throw .undecodable(.ico, "truncated: the directory of \(count) images is cut off") }
        var entries: [Entry] = []
        for index in 0..<count {
            let entry = 6 + 16 * index
            let size = Int(BMPHeader.u32(bytes, entry + 8))
            let offset = Int(BMPHeader.u32(bytes, entry + 12))
            // A cut file keeps the images that arrived whole, as browsers do.
            guard size > 0, offset >= 6 + 16 * count, offset + size <= bytes.count else { continue }
            entries.append(Entry(
                width: bytes[entry] == 0 ? 256 : Int(bytes[entry]),
                height: bytes[entry + 1] == 0 ? 256 : Int(bytes[entry + 1]),
                bitsPerPixel: isCursor ? 0 : Int(BMPHeader.u16(bytes, entry + 6)),
                range: offset..<(offset + size)
            ))
        }
        guard !entries.isEmpty else { throw .undecodable(.ico, "truncated: no image of the directory is in the data") }
        self.entries = entries
    }

    /// The largest image (by area, then depth): what a full decode shows.
    var largest: Entry {
        entries.max { ($0.width * $0.height, $0.bitsPerPixel) < ($1.width * $1.height, $1.bitsPerPixel) }!
    }

    /// The image to decode for `target`: the smallest that covers it on
    /// both sides (the deepest of those of that size), else the largest —
    /// so a 16 px request reads the 16×16 image, not the 256×256 one.
    func best(covering target: PixelSize?) -> Entry {
        guard let target else { return largest }
        let covering = entries.filter { $0.width >= target.width && $0.height >= target.height }
        return covering.min { ($0.width * $0.height, -$0.bitsPerPixel) < ($1.width * $1.height, -$1.bitsPerPixel) } ?? largest
    }
}
