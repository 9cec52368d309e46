public import Foundation
import CJxl
public import AsyncWebImage

/// JPEG XL decoding and encoding on libjxl.
///
/// Decodes the first frame (an animation's first displayed frame) of a
/// bare codestream or a container file to 8-bit ``PixelFormat/gray8``,
/// ``PixelFormat/grayAlpha8``, ``PixelFormat/rgb8`` or ``PixelFormat/rgba8``
/// (straight alpha), as libjxl renders it (deeper samples rounded to 8
/// bits by libjxl, as djxl writes an 8-bit PNG). The codestream's
/// orientation becomes ``Image/orientation`` (applied with
/// ``ImageDecodingOptions/applyOrientation``), as a JPEG's EXIF does. The
/// pixels' colour profile (the one libjxl decodes to, the original's for
/// lossy XYB files) is converted to sRGB like every coder's.
///
/// ## Thumbnails and previews
/// A lossy (VarDCT) JPEG XL codes its 1:8 image (the DC) before the
/// detail. A thumbnail of at most an eighth of the image on each side
/// stops decoding there: libjxl's upsampled DC is resampled to the target
/// and the AC data is never decoded (the pixels are within the DC's
/// precision of a full decode resampled). Larger thumbnails, and lossless
/// files (no DC), decode in full and are resampled. A download in progress
/// gives a preview whenever libjxl reaches a new progressive step
/// (``JXLProgressiveDecoder``).
///
/// Safety on hostile input: the basic info is read and
/// ``ImageDecodingOptions/maxPixelCount`` and
/// ``ImageDecodingOptions/maxDecodeMemoryBytes`` checked before libjxl is
/// given an output buffer or decodes a frame; data that ends early fails
/// with a message starting "truncated"; every libjxl failure is
/// ``ImageError/undecodable(_:_:)``.
public struct JXLCoder: ImageDecoding, ImageEncoding {
    /// The encoder's effort, 1 (fastest) to 9 (smallest); 7 by default, as cjxl.
    public var effort: Int

    /// Creates the coder.
    ///
    /// - Parameter effort: encoder effort, clamped to 1...9; 7 by default.
    public init(effort: Int = 7) {
        self.effort = min(max(effort, 1), 9)
    }

    /// Whether `data` starts with a JPEG XL codestream or container signature.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jxl }

    /// Decodes the first frame (see the type's discussion).
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over the limits;
    ///   ``ImageError/undecodable(_:_:)`` otherwise.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes { bytes throws(ImageError) in
            try Self.decodeImage(bytes, options: options, isComplete: true)
        }
    }

    /// The size the basic info declares, or `nil`.
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes -> PixelSize? in
            guard let decoder = try? JXLDecoderHandle(input: bytes, events: JXL_DEC_BASIC_INFO, isComplete: true),
                  (try? decoder.next(checkInfo: { _ in })) != nil, decoder.info.xsize > 0
            else { return nil }
            return PixelSize(width: Int(decoder.info.xsize), height: Int(decoder.info.ysize))
        }
    }

    /// A ``JXLProgressiveDecoder`` for a download in progress.
    package func makeProgressiveDecoder(options: ImageDecodingOptions) -> (any ProgressiveImageDecoding)? {
        JXLProgressiveDecoder(options: options)
    }

    /// Whether `format` is ``ImageFormat/jxl``.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .jxl }

    /// Encodes `image` as a JPEG XL codestream (sRGB, 8 bits a sample).
    ///
    /// - Parameters:
    ///   - quality: 0...1, mapped to a Butteraugli distance as cjxl maps
    ///     its quality (0.9 is cjxl's `-q 90`, distance 1.0); 1 is lossless.
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` with libjxl's status.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        guard format == .jxl else { throw ImageError.encodingFailed(format, "JXLCoder writes only JPEG XL") }
        return try Self.encodeImage(image, quality: quality, effort: effort)
    }

    /// The distance cjxl gives a 0...100 quality: linear above 30, steeper below.
    static func distance(forQuality quality: Double) -> Float {
        let q = (quality.isNaN ? 0.9 : min(1, max(0, quality))) * 100
        if q >= 30 { return Float(0.1 + (100 - q) * 0.09) }
        return Float(6.4 + pow(2.5, (30 - q) / 5) / 6.25)
    }
}

/// Previews while the bytes arrive (`.progressiveLoad`).
extension JXLCoder: ProgressiveDecoderProviding {}
