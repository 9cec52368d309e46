public import Foundation
import CSpng

extension PNGCoder {
    /// Encodes `image` as an 8-bit PNG of the matching colour type:
    /// `.gray8` → grey, `.grayAlpha8` → grey + alpha, `.rgb8` → RGB,
    /// `.rgba8` → RGBA (straight alpha, as stored).
    ///
    /// PNG is lossless, so `quality` is ignored: the output uses
    /// ``compressionLevel`` (zlib level 6 by default) with libspng's adaptive
    /// per-row filter choice. An orientation other than `.up` is written as
    /// an eXIf chunk, so decoding gives back the same image. An
    /// ``Image/iccProfile`` is written as an `iCCP` chunk; an image converted
    /// to sRGB at decode (``ColorConversion/converted``) gets an `sRGB` chunk.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` for a format other than
    ///   `.png` or when libspng fails.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        guard format == .png else { throw ImageError.encodingFailed(format, "PNGCoder only writes PNG") }
        let context = try SpngContext(encoding: ())
        var ihdr = spng_ihdr()
        ihdr.width = UInt32(clamping: image.width)
        ihdr.height = UInt32(clamping: image.height)
        ihdr.bit_depth = 8
        ihdr.color_type = UInt8(truncatingIfNeeded: Self.colorType(of: image.pixelFormat).rawValue)
        try context.check(spng_set_ihdr(context.raw, &ihdr))
        try context.check(spng_set_option(context.raw, SPNG_IMG_COMPRESSION_LEVEL, Int32(min(max(compressionLevel, 0), 9))))
        var exifBytes = Self.exif(for: image.orientation)
        if !exifBytes.isEmpty {
            try exifBytes.withUnsafeMutableBytes { bytes in
                var exif = spng_exif(length: bytes.count, data: bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
                try context.check(spng_set_exif(context.raw, &exif))
            }
        }
        let colorChunk = try Self.setColorChunk(for: image, context: context)
        defer { withExtendedLifetime(colorChunk) {} }
        // Row by row, so a padded `bytesPerRow` needs no packed copy.
        let flags = Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)
        try context.check(spng_encode_image(context.raw, nil, 0, Int32(SPNG_FMT_PNG.rawValue), flags))
        let rowBytes = image.width * image.pixelFormat.bytesPerPixel
        try image.withUnsafeBytes { pixels in
            guard let base = pixels.baseAddress else { throw ImageError.encodingFailed(.png, "empty image") }
            for row in 0..<image.height {
                let code = spng_encode_row(context.raw, base + row * image.bytesPerRow, rowBytes)
                guard code == 0 || (code == SPNG_EOI.rawValue && row == image.height - 1) else {
                    throw context.error(code)
                }
            }
        }
        var length = 0
        var code: Int32 = 0
        guard let buffer = spng_get_png_buffer(context.raw, &length, &code), code == 0 else {
            throw context.error(code == 0 ? Int32(SPNG_EINTERNAL.rawValue) : code)
        }
        // libspng hands over a malloc'd buffer: Data takes it without a copy.
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
    }

    /// The PNG colour type storing `format` without loss.
    private static func colorType(of format: PixelFormat) -> spng_color_type {
        switch format {
        case .gray8: SPNG_COLOR_TYPE_GRAYSCALE
        case .grayAlpha8: SPNG_COLOR_TYPE_GRAYSCALE_ALPHA
        case .rgb8: SPNG_COLOR_TYPE_TRUECOLOR
        case .rgba8: SPNG_COLOR_TYPE_TRUECOLOR_ALPHA
        }
    }

    /// A minimal big-endian TIFF with one IFD0 entry, Orientation; empty for `.up`.
    private static func exif(for orientation: ImageOrientation) -> [UInt8] {
        guard orientation != .up else { return [] }
        return [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, // "MM", 42, IFD0 at 8
                0, 1, // one entry
                0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation.rawValue, 0, 0, // Orientation, SHORT, 1
                0, 0, 0, 0] // no next IFD
    }
}
