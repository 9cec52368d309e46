import CAvif
import Foundation
import AsyncWebImageAVIF

/// Direct libavif calls: the AVIF corpus encoder, and the baseline the
/// library's `AVIFCoder` is measured against. Nothing here goes through the library.
enum RawAvif {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ result: avifResult, _ what: String) {
            description = "\(what): " + String(cString: avifResultToString(result))
        }
    }

    /// Encodes tightly packed RGB8 pixels as an 8-bit 4:2:0 AVIF at `speed`
    /// and AV1 quantizer `quantizer`.
    static func encode(rgb: [UInt8], width: Int, height: Int, quantizer: Int32, speed: Int32) throws -> Data {
        guard let image = avifImageCreate(UInt32(width), UInt32(height), 8, AVIF_PIXEL_FORMAT_YUV420) else {
            throw Failure(AVIF_RESULT_OUT_OF_MEMORY, "avifImageCreate")
        }
        defer { avifImageDestroy(image) }
        var status = AVIF_RESULT_OK
        rgb.withUnsafeBytes { pixels in
            var layout = avifRGBImage()
            avifRGBImageSetDefaults(&layout, image)
            layout.format = AVIF_RGB_FORMAT_RGB
            layout.depth = 8
            layout.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress?.assumingMemoryBound(to: UInt8.self))
            layout.rowBytes = UInt32(width * 3)
            status = avifImageRGBToYUV(image, &layout)
        }
        guard status == AVIF_RESULT_OK else { throw Failure(status, "avifImageRGBToYUV") }
        guard let encoder = avifEncoderCreate() else { throw Failure(AVIF_RESULT_OUT_OF_MEMORY, "avifEncoderCreate") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.speed = speed
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.maxThreads = 2
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        status = avifEncoderWrite(encoder, image, &output)
        guard status == AVIF_RESULT_OK, let bytes = output.data else { throw Failure(status, "avifEncoderWrite") }
        return Data(bytes: bytes, count: output.size)
    }

    /// Decodes the first image into a new tightly packed RGB8 (or RGBA8 when
    /// `alpha`) buffer, single-threaded, the way a program calling libavif
    /// directly would: parse, decode, `avifImageYUVToRGB`.
    static func decode(_ data: Data, alpha: Bool) throws -> (pixels: [UInt8], width: Int, height: Int) {
        guard let decoder = avifDecoderCreate() else { throw Failure(AVIF_RESULT_OUT_OF_MEMORY, "avifDecoderCreate") }
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.maxThreads = 1
        return try data.withUnsafeBytes { raw in
            var status = avifDecoderSetIOMemory(decoder, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count)
            guard status == AVIF_RESULT_OK else { throw Failure(status, "avifDecoderSetIOMemory") }
            status = avifDecoderParse(decoder)
            guard status == AVIF_RESULT_OK else { throw Failure(status, "avifDecoderParse") }
            status = avifDecoderNextImage(decoder)
            guard status == AVIF_RESULT_OK, let image = decoder.pointee.image else { throw Failure(status, "avifDecoderNextImage") }
            let (width, height) = (Int(image.pointee.width), Int(image.pointee.height))
            let channels = alpha ? 4 : 3
            let pixels = try [UInt8](unsafeUninitializedCapacity: width * height * channels) { buffer, initialized in
                var layout = avifRGBImage()
                avifRGBImageSetDefaults(&layout, image)
                layout.format = alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
                layout.depth = 8
                layout.pixels = buffer.baseAddress
                layout.rowBytes = UInt32(width * channels)
                let converted = avifImageYUVToRGB(image, &layout)
                guard converted == AVIF_RESULT_OK else { throw Failure(converted, "avifImageYUVToRGB") }
                initialized = buffer.count
            }
            return (pixels, width, height)
        }
    }
}
