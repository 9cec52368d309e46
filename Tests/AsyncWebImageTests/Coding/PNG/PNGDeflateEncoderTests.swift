import CSpng
import Foundation
import Testing
@testable import AsyncWebImage

/// PNGCoder's encoder (adaptive filters, libdeflate) against libspng, which
/// no one here wrote: libspng decodes our output to the original pixels,
/// and our output is within 5 % of libspng's own zlib encode at the same
/// level with the same filter heuristic.
@Suite("PNGDeflateEncoder", .timeLimit(.minutes(2)))
struct PNGDeflateEncoderTests {
    /// The 640×480 photo fixture in `format` (alpha from a gradient, grey from the channels' mean).
    static func photo(_ format: PixelFormat) throws -> Image {
        let rgb = try JPEGCoder().decode(fixture("jpeg", "large.jpg"), options: .init())
        var pixels: [UInt8] = []
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let p = rgb.pixel(x: x, y: y) ?? [0, 0, 0]
                let gray = UInt8((Int(p[0]) + Int(p[1]) + Int(p[2])) / 3)
                let alpha = UInt8(truncatingIfNeeded: x * 255 / max(1, rgb.width - 1))
                switch format {
                case .gray8: pixels += [gray]
                case .grayAlpha8: pixels += [gray, alpha]
                case .rgb8: pixels += Array(p.prefix(3))
                case .rgba8: pixels += Array(p.prefix(3)) + [alpha]
                }
            }
        }
        return try Image(width: rgb.width, height: rgb.height, pixelFormat: format, pixels: pixels)
    }

    /// The image's rows without padding.
    static func packed(_ image: Image) -> [UInt8] {
        let rowBytes = image.width * image.pixelFormat.bytesPerPixel
        return image.withUnsafeBytes { bytes in
            (0..<image.height).flatMap { y in Array(bytes[(y * image.bytesPerRow)..<(y * image.bytesPerRow + rowBytes)]) }
        }
    }

    /// libspng's decode of `data` to its own colour type, 8 bits: (width, height, bytes).
    static func spngDecode(_ data: Data) throws -> (Int, Int, [UInt8]) {
        let context = try #require(spng_ctx_new(0))
        defer { spng_ctx_free(context) }
        var bytes = [UInt8](data)
        try #require(bytes.withUnsafeMutableBytes { spng_set_png_buffer(context, $0.baseAddress, $0.count) } == 0)
        var header = spng_ihdr()
        try #require(spng_get_ihdr(context, &header) == 0)
        let format = Int32(SPNG_FMT_PNG.rawValue)
        var size = 0
        try #require(spng_decoded_image_size(context, format, &size) == 0)
        var out = [UInt8](repeating: 0, count: size)
        let code = out.withUnsafeMutableBytes { spng_decode_image(context, $0.baseAddress, size, format, 0) }
        try #require(code == 0, "spng_decode_image: \(String(cString: spng_strerror(code)))")
        return (Int(header.width), Int(header.height), out)
    }

    /// libspng's own encode (zlib at `level`, its default adaptive filter choice).
    static func spngEncode(_ image: Image, level: Int) throws -> Data {
        let context = try #require(spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)))
        defer { spng_ctx_free(context) }
        try #require(spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1) == 0)
        try #require(spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, Int32(level)) == 0)
        let colorType: UInt8 = switch image.pixelFormat {
        case .gray8: 0
        case .grayAlpha8: 4
        case .rgb8: 2
        case .rgba8: 6
        }
        var header = spng_ihdr(width: UInt32(image.width), height: UInt32(image.height), bit_depth: 8, color_type: colorType,
                               compression_method: 0, filter_method: 0, interlace_method: 0)
        try #require(spng_set_ihdr(context, &header) == 0)
        let packed = Self.packed(image)
        let code = packed.withUnsafeBytes { spng_encode_image(context, $0.baseAddress, $0.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue)) }
        try #require(code == 0, "spng_encode_image: \(String(cString: spng_strerror(code)))")
        var length = 0
        var error: Int32 = 0
        let buffer = try #require(spng_get_png_buffer(context, &length, &error))
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
    }

    @Test("libspng decodes the output to the original pixels, every format and level",
          arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8], [0, 1, 6, 9])
    func libspngRoundTrip(format: PixelFormat, level: Int) throws {
        // Given a photo-like image
        let image = try Self.photo(format)
        // When PNGCoder encodes it and libspng decodes the result
        let data = try PNGCoder(compressionLevel: level).encode(image, as: .png, quality: 1)
        let (width, height, pixels) = try Self.spngDecode(data)
        // Then every byte is the original's
        #expect(width == image.width && height == image.height)
        #expect(pixels == Self.packed(image))
    }

    @Test("padded rows are read where they are, not as if packed")
    func paddedRows() throws {
        // Given an RGBA image whose rows carry 7 bytes of padding
        let (width, height) = (33, 21)
        let stride = width * 4 + 7
        let bytes = (0..<(stride * height)).map { UInt8(truncatingIfNeeded: ($0 % stride) &* 13 &+ $0 / stride &* 7) }
        let image = try Image(width: width, height: height, pixelFormat: .rgba8, bytesPerRow: stride, pixels: bytes)
        // When encoded and decoded by libspng
        let (_, _, pixels) = try Self.spngDecode(try PNGCoder().encode(image, as: .png, quality: 1))
        // Then the padding is gone and every pixel is the original's
        #expect(pixels == Self.packed(image))
    }

    @Test("within 5 % of libspng's zlib encode at the same level", arguments: [PixelFormat.rgb8, .rgba8, .gray8], Array(1...9))
    func notLargerThanZlib(format: PixelFormat, level: Int) throws {
        // Given a photo-like image
        let image = try Self.photo(format)
        // When encoded by PNGCoder (libdeflate) and by libspng (zlib) at the same level
        let ours = try PNGCoder(compressionLevel: level).encode(image, as: .png, quality: 1)
        let zlib = try Self.spngEncode(image, level: level)
        // Then ours is at most 5 % larger (libdeflate's levels are tuned for
        // speed where zlib's spend more time; on real thumbnails ours is smaller)
        #expect(ours.count * 100 <= zlib.count * 105, "libdeflate \(ours.count) B, zlib \(zlib.count) B")
    }

    @Test("an ICC profile travels in iCCP, an sRGB conversion as sRGB, orientation as eXIf")
    func colorAndOrientationChunks() throws {
        // Given an image carrying a profile and a non-up orientation
        let profile = try fixture("icc", "display-p3.icc")
        let image = try Self.photo(.rgb8).with(orientation: .right).with(colorProfile: profile, conversion: .kept)
        // When encoded, then decoded keeping the profile
        let data = try PNGCoder().encode(image, as: .png, quality: 1)
        var options = ImageDecodingOptions()
        options.keepsColorProfile = true
        let decoded = try PNGCoder().decode(data, options: options)
        // Then libspng's chunk reader and ours see the same profile and orientation
        #expect(decoded.iccProfile == profile)
        #expect(decoded.orientation == .right)
        #expect(decoded.hasSamePixels(as: image))
        let context = try #require(spng_ctx_new(0))
        defer { spng_ctx_free(context) }
        var bytes = [UInt8](data)
        _ = bytes.withUnsafeMutableBytes { spng_set_png_buffer(context, $0.baseAddress, $0.count) }
        var iccp = spng_iccp()
        #expect(spng_get_iccp(context, &iccp) == 0)
        #expect(iccp.profile_len == profile.count)
    }
}
