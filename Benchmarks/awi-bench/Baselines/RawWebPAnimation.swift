import CWebP
import Foundation
import AsyncWebImageWebP

/// Direct libwebpdemux/libwebpmux calls for the animated WebP scenario:
/// the encoder that makes its file and the decode loop `WebPCoder`'s frame
/// decoder is measured against. Nothing here goes through the library.
enum RawWebPAnimation {
    /// Encodes `frameCount` RGBA frames that `frame` fills, each shown
    /// `duration` ms, lossy at `quality`, with `WebPAnimEncoder`.
    static func encode(width: Int, height: Int, frameCount: Int, duration: Int, quality: Float,
                       frame: (Int, inout [UInt8]) -> Void) throws -> Data {
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0,
              let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw BenchmarkFailure("WebPAnimEncoderNew failed")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw BenchmarkFailure("libwebp version mismatch") }
        config.quality = quality
        config.method = 2
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<frameCount {
            frame(index, &pixels)
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw BenchmarkFailure("WebPPictureInit failed") }
            defer { WebPPictureFree(&picture) }
            picture.width = Int32(width)
            picture.height = Int32(height)
            picture.use_argb = 1
            guard pixels.withUnsafeBufferPointer({ WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(width * 4)) }) != 0,
                  WebPAnimEncoderAdd(encoder, &picture, Int32(index * duration), &config) != 0 else {
                throw BenchmarkFailure("WebPAnimEncoderAdd failed")
            }
        }
        var output = WebPData()
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(frameCount * duration), nil) != 0,
              WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else {
            throw BenchmarkFailure("WebPAnimEncoderAssemble failed")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// Decodes every frame with `WebPAnimDecoder` (RGBA, one thread), each
    /// copied into a fresh buffer as a decoder returning images must; returns
    /// the last frame.
    static func decodeAll(_ data: Data) throws -> [UInt8] {
        try data.withUnsafeBytes { raw in
            var webp = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw BenchmarkFailure("libwebpdemux version mismatch") }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&webp, &options) else { throw BenchmarkFailure("WebPAnimDecoderNew failed") }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { throw BenchmarkFailure("WebPAnimDecoderGetInfo failed") }
            let count = Int(info.canvas_width * info.canvas_height * 4)
            var last: [UInt8] = []
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var canvas: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                    throw BenchmarkFailure("WebPAnimDecoderGetNext failed")
                }
                last = [UInt8](UnsafeBufferPointer(start: canvas, count: count))
                blackHole(last)
            }
            return last
        }
    }
}
