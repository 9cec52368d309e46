import CSpng
import Foundation
import Glibc

/// Direct libspng calls: the corpus encoder, and the baseline the library's
/// `PNGCoder` is measured against. Nothing here goes through the library.
enum RawSpng {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ code: Int32, _ what: String) {
            description = "\(what): " + String(cString: spng_strerror(code))
        }
    }

    /// Encodes tightly packed RGB8 pixels as an 8-bit truecolour PNG, plain or Adam7.
    static func encode(rgb: [UInt8], width: Int, height: Int, interlaced: Bool) throws -> Data {
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw Failure(SPNG_EMEM.rawValue, "spng_ctx_new") }
        defer { spng_ctx_free(context) }
        try check(spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1), "spng_set_option")
        var header = spng_ihdr(
            width: UInt32(width), height: UInt32(height), bit_depth: 8,
            color_type: UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), compression_method: 0, filter_method: 0,
            interlace_method: interlaced ? 1 : 0
        )
        try check(spng_set_ihdr(context, &header), "spng_set_ihdr")
        try rgb.withUnsafeBytes {
            try check(
                spng_encode_image(context, $0.baseAddress, $0.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue)),
                "spng_encode_image"
            )
        }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(context, &length, &error) else { throw Failure(error, "spng_get_png_buffer") }
        defer { free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// The header of a PNG, or `nil` when libspng cannot read it.
    static func header(of data: Data) -> spng_ihdr? {
        guard let context = spng_ctx_new(0) else { return nil }
        defer { spng_ctx_free(context) }
        var header = spng_ihdr()
        let status = data.withUnsafeBytes { raw -> Int32 in
            let set = spng_set_png_buffer(context, raw.baseAddress, raw.count)
            return set != 0 ? set : spng_get_ihdr(context, &header)
        }
        return status == 0 ? header : nil
    }

    /// Decodes the whole image into a new buffer of `format`
    /// (`SPNG_FMT_RGB8` or `SPNG_FMT_RGBA8`, with tRNS applied), the way a
    /// program calling libspng directly would.
    static func decode(_ data: Data, format: spng_format) throws -> [UInt8] {
        guard let context = spng_ctx_new(0) else { throw Failure(SPNG_EMEM.rawValue, "spng_ctx_new") }
        defer { spng_ctx_free(context) }
        return try data.withUnsafeBytes { raw in
            try check(spng_set_png_buffer(context, raw.baseAddress, raw.count), "spng_set_png_buffer")
            var length = 0
            try check(spng_decoded_image_size(context, Int32(format.rawValue), &length), "spng_decoded_image_size")
            var status: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                status = spng_decode_image(context, buffer.baseAddress, length, Int32(format.rawValue), Int32(SPNG_DECODE_TRNS.rawValue))
                initialized = length
            }
            try check(status, "spng_decode_image")
            return pixels
        }
    }

    private static func check(_ status: Int32, _ what: String) throws {
        if status != 0 { throw Failure(status, what) }
    }
}
