import CAvif
import Foundation
import AsyncWebImage

extension AVIFCoder {
    /// AV1's quantizer (0 best ... 63 worst) for a 0...1 quality, as
    /// libavif 1.0 maps its 0...100 `quality` (NaN counts as 0.9).
    static func quantizer(forQuality quality: Double) -> Int32 {
        let clamped = quality.isNaN ? 0.9 : min(1, max(0, quality))
        let percent = Int((clamped * 100).rounded())
        return Int32(((100 - percent) * 63 + 50) / 100)
    }

    /// Encodes with libavif; see ``encode(_:as:quality:)``.
    static func encodeImage(_ image: Image, quality: Double, speed: Int, maxThreads: Int) throws(ImageError) -> Data {
        let avif = try makeYUVImage(image, alpha: image.pixelFormat.hasAlpha)
        defer { avifImageDestroy(avif) }
        let (rotation, mirror) = image.orientation.heifTransforms
        if rotation != 0 {
            avif.pointee.transformFlags |= UInt32(AVIF_TRANSFORM_IROT.rawValue)
            avif.pointee.irot.angle = UInt8(rotation)
        }
        if let mirror {
            avif.pointee.transformFlags |= UInt32(AVIF_TRANSFORM_IMIR.rawValue)
            avif.pointee.imir.mode = UInt8(mirror)
        }

        guard let encoder = avifEncoderCreate() else { throw .encodingFailed(.avif, "libavif could not allocate an encoder") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.speed = Int32(min(max(speed, 0), 10))
        encoder.pointee.maxThreads = Int32(clamping: max(1, maxThreads))
        let q = quantizer(forQuality: quality)
        encoder.pointee.minQuantizer = q
        encoder.pointee.maxQuantizer = q
        encoder.pointee.minQuantizerAlpha = q
        encoder.pointee.maxQuantizerAlpha = q
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let written = avifEncoderWrite(encoder, avif, &output)
        guard written == AVIF_RESULT_OK, let bytes = output.data else {
            throw .encodingFailed(.avif, message(written, diagnostics: &encoder.pointee.diag))
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// `image`'s pixels as a new 8-bit 4:2:0 libavif image with sRGB
    /// signalling (BT.709 primaries, sRGB transfer, BT.601 matrix, full
    /// range), with an alpha plane when `alpha` (opaque for an image
    /// without alpha). The caller destroys it.
    static func makeYUVImage(_ image: Image, alpha: Bool) throws(ImageError) -> UnsafeMutablePointer<avifImage> {
        guard let avif = avifImageCreate(UInt32(clamping: image.width), UInt32(clamping: image.height), 8, AVIF_PIXEL_FORMAT_YUV420) else {
            throw .encodingFailed(.avif, "libavif could not allocate an image")
        }
        avif.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        avif.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        avif.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_BT601)
        avif.pointee.yuvRange = AVIF_RANGE_FULL
        // An alpha plane allocated before the conversion is filled opaque
        // when the pixels have none (a sequence's frames must all have one or none).
        if alpha, !image.pixelFormat.hasAlpha, avifImageAllocatePlanes(avif, AVIF_PLANES_A.rawValue) != AVIF_RESULT_OK {
            avifImageDestroy(avif)
            throw .encodingFailed(.avif, "libavif could not allocate an alpha plane")
        }
        // libavif reads RGB or RGBA; grey is widened to it first.
        let colour = image.pixelFormat.isGray ? widenedToRGB(image) : image
        var conversion = AVIF_RESULT_OK
        colour.withUnsafeBytes { pixels in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, avif)
            rgb.depth = 8
            rgb.format = colour.pixelFormat.hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
            rgb.alphaPremultiplied = AVIF_FALSE
            // avifImageRGBToYUV only reads the pixels; the type is mutable because the struct serves both ways.
            rgb.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress?.assumingMemoryBound(to: UInt8.self))
            rgb.rowBytes = UInt32(colour.bytesPerRow)
            conversion = avifImageRGBToYUV(avif, &rgb)
        }
        guard conversion == AVIF_RESULT_OK else {
            avifImageDestroy(avif)
            throw .encodingFailed(.avif, "RGB to YUV: " + message(conversion, diagnostics: nil))
        }
        return avif
    }

    /// A grey image's pixels as RGB(A): each luminance value in all three channels.
    static func widenedToRGB(_ image: Image) -> Image {
        let alpha = image.pixelFormat.hasAlpha
        let pixelFormat: PixelFormat = alpha ? .rgba8 : .rgb8
        return image.withUnsafeBytes { source in
            Image.make(width: image.width, height: image.height, pixelFormat: pixelFormat, orientation: image.orientation, format: image.format) { destination in
                var d = 0
                for y in 0..<image.height {
                    var s = y * image.bytesPerRow
                    for _ in 0..<image.width {
                        let luma = source[s]
                        destination[d] = luma
                        destination[d + 1] = luma
                        destination[d + 2] = luma
                        if alpha {
                            destination[d + 3] = source[s + 1]
                            s += 2
                            d += 4
                        } else {
                            s += 1
                            d += 3
                        }
                    }
                }
            }
        }
    }
}
