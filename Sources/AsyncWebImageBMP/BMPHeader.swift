import AsyncWebImage

/// What a bitmap's headers declare: the DIB header of a BMP file (after
/// its 14-byte file header) or of an icon's image, its colour masks and
/// palette, read without touching any pixel.
struct BMPHeader {
    /// How the pixel data is stored.
    enum Compression: Equatable {
        case none
        case runLength8
        case runLength4
        /// Pixels of 16 or 32 bits whose channels the masks locate.
        case bitFields
    }

    let width: Int
    /// Rows, always positive; ``isTopDown`` tells the order.
    let height: Int
    let isTopDown: Bool
    let bitsPerPixel: Int
    let compression: Compression
    /// Red, green, blue and alpha masks (alpha 0 when there is none).
    let masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
    /// The palette as RGB triples, for 1, 2, 4 and 8 bits per pixel.
    let palette: [UInt8]
    /// Where the pixel data starts.
    let pixelOffset: Int
    /// An embedded ICC profile (BITMAPV5HEADER, `PROFILE_EMBEDDED`), if any.
    let iccProfile: [UInt8]?

    /// Bytes of one stored row of an uncompressed bitmap, padded to 4.
    var rowBytes: Int { ((width * bitsPerPixel + 31) / 32) * 4 }

    /// Reads the headers of a BMP file.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for headers that are not a
    ///   bitmap's or declare what this decoder does not read.
    init(file bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard bytes.count >= 18, bytes[0] == 0x42, bytes[1] == 0x4D else { throw .undecodable(.bmp, "not a BMP file") }
        let pixelOffset = Int(Self.u32(bytes, 10))
        try self.init(dib: bytes, at: 14, pixelOffset: pixelOffset, format: .bmp, heightIsDoubled: false)
    }

    /// Reads a DIB header at `start` (an icon's image, or a file's).
    ///
    /// - Parameters:
    ///   - pixelOffset: where the pixels start, or `nil` for right after the palette (icons).
    ///   - heightIsDoubled: an icon's height counts its AND mask too.
    init(dib bytes: UnsafeRawBufferPointer, at start: Int, pixelOffset: Int?, format: ImageFormat, heightIsDoubled: Bool) throws(ImageError) {
        func fail(_ message: String) -> ImageError { .undecodable(format, message) }
        guard start + 4 <= bytes.count else { throw fail("truncated: no DIB header") }
        let size = Int(Self.u32(bytes, start))
        guard [12, 16, 40, 52, 56, 64, 108, 124].contains(size) else { throw fail("a DIB header of \(size) bytes") }
        guard start + size <= bytes.count else { throw fail("truncated: the DIB header is cut off") }
        let storedHeight: Int
        var compressionCode = 0
        var colorsUsed = 0
        if size == 12 {
            width = Int(Self.u16(bytes, start + 4))
            storedHeight = Int(Int16(bitPattern: Self.u16(bytes, start + 6)))
            bitsPerPixel = Int(Self.u16(bytes, start + 10))
        } else {
            width = Int(Int32(bitPattern: Self.u32(bytes, start + 4)))
            storedHeight = Int(Int32(bitPattern: Self.u32(bytes, start + 8)))
            bitsPerPixel = Int(Self.u16(bytes, start + 14))
            if size >= 20 { compressionCode = Int(Self.u32(bytes, start + 16)) }
            if size >= 36 { colorsUsed = Int(Self.u32(bytes, start + 32)) }
        }
        guard width > 0, storedHeight != 0, storedHeight != Int(Int32.min) else {
            throw .invalidImage("a bitmap of \(width)×\(storedHeight) pixels")
        }
        isTopDown = storedHeight < 0
        height = heightIsDoubled ? abs(storedHeight) / 2 : abs(storedHeight)
        guard height > 0 else { throw .invalidImage("a bitmap of \(width)×0 pixels") }
        guard [1, 2, 4, 8, 16, 24, 32].contains(bitsPerPixel) else { throw fail("\(bitsPerPixel) bits per pixel") }

        var maskEnd = start + size
        switch compressionCode {
        case 0:
            compression = .none
            masks = bitsPerPixel == 16 ? (0x7C00, 0x03E0, 0x001F, 0) : (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0)
        case 1, 2:
            // Top-down run-length data breaks the rule, but browsers and ImageMagick read it.
            guard bitsPerPixel == (compressionCode == 1 ? 8 : 4) else { throw fail("run-length data of \(bitsPerPixel) bits per pixel") }
            compression = compressionCode == 1 ? .runLength8 : .runLength4
            masks = (0, 0, 0, 0)
        case 3, 6:
            guard bitsPerPixel == 16 || bitsPerPixel == 32 else { throw fail("bit fields at \(bitsPerPixel) bits per pixel") }
            compression = .bitFields
            // Inside headers of 52 bytes and more; after a 40-byte one (3 masks, or 4 for ALPHABITFIELDS).
            let maskStart = start + 40
            let count = compressionCode == 6 ? 4 : 3
            if size == 40 { maskEnd = maskStart + 4 * count }
            guard maskStart + 12 <= bytes.count, maskEnd <= bytes.count else { throw fail("truncated: the colour masks are cut off") }
            let hasAlphaMask = size >= 56 || compressionCode == 6
            masks = (Self.u32(bytes, maskStart), Self.u32(bytes, maskStart + 4), Self.u32(bytes, maskStart + 8),
                     hasAlphaMask ? Self.u32(bytes, maskStart + 12) : 0)
        case 4, 5:
            throw fail("embedded \(compressionCode == 4 ? "JPEG" : "PNG") data (a printer's bitmap)")
        default:
            throw fail("compression \(compressionCode)")
        }

        // The palette follows the header (and masks); 3-byte entries in OS/2 core headers.
        var palette: [UInt8] = []
        let entryBytes = size == 12 ? 3 : 4
        var paletteEnd = maskEnd
        if bitsPerPixel <= 8 {
            let declared = colorsUsed == 0 ? 1 << bitsPerPixel : colorsUsed
            guard declared <= 256 else { throw fail("a palette of \(declared) colours") }
            // A file cut inside its palette keeps the entries that arrived, as browsers do; missing ones are black.
            let limit = pixelOffset.map { min($0, bytes.count) } ?? bytes.count
            let available = max(0, (limit - maskEnd) / entryBytes)
            let count = min(declared, pixelOffset == nil ? declared : available)
            guard maskEnd + count * entryBytes <= bytes.count else { throw fail("truncated: the palette is cut off") }
            palette.reserveCapacity(count * 3)
            for index in 0..<count {
                let entry = maskEnd + index * entryBytes
                palette += [bytes[entry + 2], bytes[entry + 1], bytes[entry]]
            }
            paletteEnd = maskEnd + declared * entryBytes
        }
        self.palette = palette
        self.pixelOffset = pixelOffset ?? paletteEnd
        guard self.pixelOffset >= 0, self.pixelOffset <= bytes.count else { throw fail("truncated: no pixel data") }

        // BITMAPV5HEADER: a profile embedded at an offset from the header's start.
        if size == 124, Self.u32(bytes, start + 56) == 0x4D42_4544 { // 'MBED'
            let offset = start + Int(Self.u32(bytes, start + 112))
            let length = Int(Self.u32(bytes, start + 116))
            iccProfile = length > 0 && offset >= start && offset + length <= bytes.count ? Array(bytes[offset..<(offset + length)]) : nil
        } else {
            iccProfile = nil
        }
    }

    static func u16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
