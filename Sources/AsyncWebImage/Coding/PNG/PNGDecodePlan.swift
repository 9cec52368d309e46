import CSpng

/// How one PNG becomes pixels: the ``PixelFormat`` it is given and the
/// libspng output format and flags that produce it.
///
/// The output keeps the information the PNG has and no more:
///
/// | PNG                                  | ``PixelFormat`` |
/// |--------------------------------------|-----------------|
/// | grey 1/2/4/8/16 without tRNS         | `.gray8`        |
/// | grey with tRNS, grey + alpha         | `.grayAlpha8`   |
/// | RGB or palette without tRNS          | `.rgb8`         |
/// | RGB or palette with tRNS, RGBA       | `.rgba8`        |
///
/// Alpha is straight. Sub-byte depths are scaled to the full 0...255 range
/// (grey 1-bit → 0, 255). 16-bit samples are decoded as such and rounded to
/// 8 bits (`round(v × 255 / 65535)`) by ``reduce(_:to:count:)``, because
/// libspng's own 16 → 8 conversion truncates. Gamma (gAMA) and ICC profiles
/// are not applied: samples are returned as stored, as browsers without
/// colour management and most server pipelines do.
struct PNGDecodePlan: Sendable {
    /// Width of the image in pixels.
    let width: Int
    /// Height of the image in pixels.
    let height: Int
    /// Whether the pixels arrive in seven Adam7 passes.
    let isInterlaced: Bool
    /// The pixel format of the decoded image.
    let pixelFormat: PixelFormat
    /// The `spng_format` libspng writes.
    let spngFormat: Int32
    /// The `spng_decode_flags` to pass (tRNS expansion or none).
    let spngFlags: Int32
    /// Whether libspng writes 16-bit host-endian samples that
    /// ``reduce(_:to:count:)`` must round to 8 bits.
    let isSixteenBit: Bool
    /// The bytes of filtered rows the image data inflates to, counted as
    /// without interlacing: `height × (1 + ⌈width × bits per pixel / 8⌉)`.
    /// Exact for a plain image, a lower bound for an Adam7 one (each image
    /// row is split over one or more pass rows, each with its own filter
    /// byte and whole bytes).
    let filteredBytes: Int

    /// Deflate's largest expansion: a 258-byte match coded in 2 bits (a
    /// 1-bit length code and a 1-bit distance code), so no stream inflates
    /// to more than 1032 times its size (zlib's best is about 1030).
    static let maximumDeflateRatio = 1032

    /// The fewest IDAT bytes that can hold the whole image.
    var minimumImageDataBytes: Int { filteredBytes / Self.maximumDeflateRatio }

    /// A ceiling on `width × height × 8` that holds whatever
    /// ``ImageDecodingOptions/maxPixelCount`` says: 16 GiB, so that no
    /// header can make a size computation overflow or an allocation fail.
    static let maximumDecodedBytes = 1 << 34

    /// Plans the decode of a PNG with header `ihdr`.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for a colour type libspng
    ///   would have refused already (defensive: never traps);
    ///   ``ImageError/tooLarge(_:limit:actual:)`` when the decoded bytes
    ///   would not fit in memory at all (only reachable with a raised
    ///   ``ImageDecodingOptions/maxPixelCount``).
    init(ihdr: spng_ihdr, hasTransparencyChunk: Bool) throws(ImageError) {
        width = Int(ihdr.width)
        height = Int(ihdr.height)
        // 8 bytes per pixel covers the widest row libspng writes (RGBA16),
        // so every later size computation stays below this product.
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: 8)
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !overflow, bytes <= Self.maximumDecodedBytes else {
            throw .tooLarge(.decodedBytes, limit: Int64(Self.maximumDecodedBytes), actual: overflow || rowOverflow ? nil : Int64(bytes))
        }
        isInterlaced = ihdr.interlace_method != 0
        // Samples per pixel by colour type (grey, RGB, palette, grey + alpha,
        // RGBA); times at most 16 bits, the row stays within 8 bytes per pixel.
        let samples = switch Int(ihdr.color_type) {
        case 2: 3
        case 4: 2
        case 6: 4
        default: 1
        }
        filteredBytes = height * (1 + (width * samples * Int(ihdr.bit_depth) + 7) / 8)
        isSixteenBit = ihdr.bit_depth == 16
        let trns = Int32(SPNG_DECODE_TRNS.rawValue)
        func format(_ value: spng_format) -> Int32 { Int32(value.rawValue) }
        switch (Int(ihdr.color_type), isSixteenBit) {
        case (Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue), false):
            (pixelFormat, spngFormat, spngFlags) = hasTransparencyChunk
                ? (.grayAlpha8, format(SPNG_FMT_GA8), trns) : (.gray8, format(SPNG_FMT_G8), 0)
        case (Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue), true):
            (pixelFormat, spngFormat, spngFlags) = hasTransparencyChunk
                ? (.grayAlpha8, format(SPNG_FMT_GA16), trns) : (.gray8, format(SPNG_FMT_PNG), 0)
        case (Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue), _):
            (pixelFormat, spngFormat, spngFlags) = (.grayAlpha8, format(SPNG_FMT_PNG), 0)
        case (Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), false):
            (pixelFormat, spngFormat, spngFlags) = hasTransparencyChunk
                ? (.rgba8, format(SPNG_FMT_RGBA8), trns) : (.rgb8, format(SPNG_FMT_RGB8), 0)
        case (Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), true):
            (pixelFormat, spngFormat, spngFlags) = hasTransparencyChunk
                ? (.rgba8, format(SPNG_FMT_RGBA16), trns) : (.rgb8, format(SPNG_FMT_PNG), 0)
        case (Int(SPNG_COLOR_TYPE_INDEXED.rawValue), _):
            (pixelFormat, spngFormat, spngFlags) = hasTransparencyChunk
                ? (.rgba8, format(SPNG_FMT_RGBA8), trns) : (.rgb8, format(SPNG_FMT_RGB8), 0)
        case (Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue), false):
            (pixelFormat, spngFormat, spngFlags) = (.rgba8, format(SPNG_FMT_RGBA8), 0)
        case (Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue), true):
            (pixelFormat, spngFormat, spngFlags) = (.rgba8, format(SPNG_FMT_PNG), 0)
        default:
            throw .undecodable(.png, "unsupported colour type \(ihdr.color_type) at bit depth \(ihdr.bit_depth)")
        }
    }

    /// Bytes of one decoded row of the final image.
    var rowBytes: Int { width * pixelFormat.bytesPerPixel }

    /// Bytes of one row as libspng writes it (twice ``rowBytes`` for 16-bit).
    var spngRowBytes: Int { isSixteenBit ? rowBytes * 2 : rowBytes }

    /// Rounds `count` 16-bit samples to 8 bits: `round(v / 257)`, exactly.
    @inline(__always)
    static func reduce(_ source: UnsafePointer<UInt16>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        for index in 0..<count {
            let value = UInt32(source[index]) + 128
            destination[index] = UInt8(truncatingIfNeeded: (value - (value >> 8)) >> 8)
        }
    }
}
