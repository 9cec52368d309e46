import CWebP
import Foundation
import AsyncWebImageWebP

/// Direct libwebp calls: the encoder that makes the benchmark's WebP files,
/// and the baseline `WebPCoder` is measured against. Nothing here goes
/// through the library.
enum RawWebP {
    /// Encodes tightly packed RGB8 pixels as lossy WebP (`WebPEncodeRGB`).
    static func encode(rgb: [UInt8], width: Int, height: Int, quality: Float) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        let size = rgb.withUnsafeBufferPointer {
            WebPEncodeRGB($0.baseAddress, Int32(width), Int32(height), Int32(width * 3), quality, &output)
        }
        defer { WebPFree(output) }
        guard size > 0, let output else { throw BenchmarkFailure("WebPEncodeRGB failed") }
        return Data(bytes: output, count: size)
    }

    /// The width and height in the file's header (`WebPGetInfo`), or `nil`
    /// when libwebp does not read it as WebP.
    static func size(of data: Data) -> (width: Int, height: Int)? {
        var width: Int32 = 0, height: Int32 = 0
        let ok = data.withUnsafeBytes { WebPGetInfo($0.bindMemory(to: UInt8.self).baseAddress, $0.count, &width, &height) }
        return ok != 0 && width > 0 && height > 0 ? (Int(width), Int(height)) : nil
    }

    /// Decodes into a new RGB or RGBA buffer of `width` × `height`, scaled
    /// by libwebp when that differs from the file's size: the same work a
    /// decoder returning a fresh image must do.
    static func decode(_ data: Data, width: Int, height: Int, alpha: Bool) throws -> [UInt8] {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw BenchmarkFailure("libwebp version mismatch") }
        let bytesPerPixel = alpha ? 4 : 3
        return try data.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self).baseAddress
            guard WebPGetFeatures(source, raw.count, &config.input) == VP8_STATUS_OK else { throw BenchmarkFailure("WebPGetFeatures failed") }
            if Int(config.input.width) != width || Int(config.input.height) != height {
                config.options.use_scaling = 1
                config.options.scaled_width = Int32(width)
                config.options.scaled_height = Int32(height)
            }
            config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            let count = width * height * bytesPerPixel
            return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                config.output.u.RGBA.rgba = buffer.baseAddress
                config.output.u.RGBA.stride = Int32(width * bytesPerPixel)
                config.output.u.RGBA.size = count
                guard WebPDecode(source, raw.count, &config) == VP8_STATUS_OK else { throw BenchmarkFailure("WebPDecode failed") }
                initialized = count
            }
        }
    }
}
