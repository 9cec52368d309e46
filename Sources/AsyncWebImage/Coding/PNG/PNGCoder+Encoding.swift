public import Foundation
import CSpng

extension PNGCoder {
    /// Encodes `image` as an 8-bit PNG of the matching colour type:
    /// `.gray8` → grey, `.grayAlpha8` → grey + alpha, `.rgb8` → RGB,
    /// `.rgba8` → RGBA (straight alpha, as stored).
    ///
    /// PNG is lossless, so `quality` is ignored: the output uses
    /// ``compressionLevel`` (6 by default) with the usual adaptive per-row
    /// filter choice, compressed by libdeflate in one call at the same level
    /// (on photographs' thumbnails smaller than zlib's output at that level,
    /// in less than half its time). An orientation other than `.up` is written as
    /// an eXIf chunk, so decoding gives back the same image. An
    /// ``Image/iccProfile`` is written as an `iCCP` chunk; an image converted
    /// to sRGB at decode (``Image/ColorConversion/converted``) gets an `sRGB` chunk.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` for a format other than
    ///   `.png`, an empty image, or when libdeflate fails.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        guard format == .png else { throw ImageError.encodingFailed(format, "PNGCoder only writes PNG") }
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw ImageError.encodingFailed(.png, "\(image.size) exceeds PNG's 2³¹ − 1 pixels per side")
        }
        let encoder = PNGDeflateEncoder(
            colorType: UInt8(truncatingIfNeeded: Self.colorType(of: image.pixelFormat).rawValue),
            level: PNGDeflateEncoder.libdeflateLevel(forZlibLevel: compressionLevel),
            iccProfile: image.iccProfile,
            declaresSRGB: image.colorConversion == .converted,
            exif: Self.exif(for: image.orientation)
        )
        // Rows are read where they are, so a padded `bytesPerRow` needs no packed copy.
        return try image.withUnsafeBytes { pixels in
            try encoder.encode(
                pixels, width: image.width, height: image.height,
                bytesPerRow: image.bytesPerRow, bytesPerPixel: image.pixelFormat.bytesPerPixel
            )
        }
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
    private static func exif(for orientation: Image.Orientation) -> [UInt8] {
        guard orientation != .up else { return [] }
        return [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, // "MM", 42, IFD0 at 8
                0, 1, // one entry
                0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation.rawValue, 0, 0, // Orientation, SHORT, 1
                0, 0, 0, 0] // no next IFD
    }
}
