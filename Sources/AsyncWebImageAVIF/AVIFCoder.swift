public import Foundation
import CAvif
public import AsyncWebImage

/// AVIF decoding and encoding on libavif (with whichever AV1 codecs the
/// system's libavif was built with; Debian 12's has dav1d, libgav1 and aom
/// for decoding, aom, rav1e and SVT-AV1 for encoding).
///
/// Decodes the primary image of a still AVIF to ``PixelFormat/rgb8``, or
/// ``PixelFormat/rgba8`` (straight alpha) when the file has an alpha plane.
/// 10- and 12-bit images are reduced to 8 bits by libavif's YUV to RGB
/// conversion, which rounds to the nearest 8-bit value. The `irot` and
/// `imir` properties become ``Image/orientation``, as a JPEG's EXIF
/// orientation does: reported, and applied with
/// ``ImageDecodingOptions/applyOrientation``. A clean aperture (`clap`)
/// crops the stored image first, as MIAF orders the transforms (a `clap`
/// libavif cannot turn into a valid crop rectangle is ignored). An embedded ICC profile is converted to sRGB like every
/// coder's (``ImageDecodingOptions/keepsColorProfile`` keeps it).
///
/// Safety on hostile input: the container is parsed first (no AV1 data is
/// decoded) and ``ImageDecodingOptions/maxPixelCount`` checked against the
/// declared size before any pixel buffer exists; libavif's own pixel limit
/// is then lowered to the same bound, so the AV1 decoder refuses a
/// bitstream that declares more than allowed. libavif's default limits
/// (16384² pixels, 32768 per side) apply to parsing itself: a file beyond
/// them fails as too large when it is also over
/// ``ImageDecodingOptions/maxPixelCount`` (the size read by the package's
/// own box reader), else with libavif's message. Only the first image is
/// decoded here (of an image sequence, its first frame); ``makeAnimatedFrameDecoder(_:options:)``
/// plays a sequence. A frame smaller than the
/// container's `ispe` is scaled up to it by libavif (0.11's behaviour). Every libavif failure is
/// ``ImageError/undecodable(_:_:)`` with libavif's message.
///
/// Thumbnails and ``ImageDecodingOptions/scaleDownLargeImages`` decode the
/// full YUV planes (AV1 has no reduced-size decode), then convert them to
/// RGB a band of rows at a time, each band resampled at once with the
/// package's area filter: the pixels of a full decode resampled, without the
/// full-size RGB image.
///
/// ## Strictness
/// libavif's decoder is strict by default (as `avifdec` is): it refuses
/// an image item without a `pixi` property, a `clap` that does not make a
/// valid crop (odd offsets in 4:2:0, say), and an alpha item without
/// `ispe` — files that Chrome (which turns these checks off), Firefox and
/// libvips (through libheif, which does not make them) all display. This
/// coder decodes them by default (``Strictness/lenient``): a `clap` that
/// cannot be applied is ignored and the whole image shown, a missing
/// `pixi` or alpha `ispe` is taken from the AV1 data. `AVIFCoder(strictness: .strict)`
/// applies libavif's checks and fails such files with its message.
///
/// - Important: a value with no shared state: every call makes its own
///   libavif decoder or encoder, so one coder may run on any number of threads.
public struct AVIFCoder: ImageDecoding, ImageEncoding {
    /// Which of libavif's conformance checks a decode applies.
    public enum Strictness: Sendable, Hashable {
        /// None of libavif's strict checks (`AVIF_STRICT_DISABLED`), as
        /// browsers and libvips decode: the default.
        case lenient
        /// All of them (`AVIF_STRICT_ENABLED`, libavif's and avifdec's default).
        case strict
    }

    /// Which of libavif's checks a decode applies; ``Strictness/lenient`` by default.
    public var strictness: Strictness

    /// The encoder's speed, 0 (slowest, smallest files) to 10 (fastest).
    /// 6 by default, as `avifenc`.
    public var speed: Int

    /// Worker threads libavif and its AV1 codec may use for one image.
    /// 1 by default: the loader already decodes several images at once, one
    /// per core.
    public var maxThreads: Int

    /// Creates the coder.
    ///
    /// - Parameters:
    ///   - speed: encoder speed, clamped to 0...10; 6 by default.
    ///   - maxThreads: threads per decode or encode, at least 1; 1 by default.
    ///   - strictness: libavif's conformance checks; ``Strictness/lenient`` by default.
    public init(speed: Int = 6, maxThreads: Int = 1, strictness: Strictness = .lenient) {
        self.speed = min(max(speed, 0), 10)
        self.maxThreads = max(1, maxThreads)
        self.strictness = strictness
    }

    /// Whether `data` is an ISO-BMFF file with an AVIF brand.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .avif }

    /// Decodes the primary image of an AVIF file.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when the container
    ///   declares more than ``ImageDecodingOptions/maxPixelCount`` pixels
    ///   (checked before any AV1 data is decoded);
    ///   ``ImageError/undecodable(_:_:)`` with libavif's message otherwise.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let image = try data.withUnsafeBytes { bytes throws(ImageError) in
            try Self.decodeImage(bytes, options: options, maxThreads: maxThreads, strictness: strictness)
        }
        // The `colr` profile, converted to sRGB (or kept) as every coder does.
        return ColorManager.manage(consume image, iccProfile: Self.iccProfile(in: data, strictness: strictness), options: options)
    }

    /// Whether `format` is ``ImageFormat/avif``.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .avif }

    /// Encodes `image` as an 8-bit AVIF with 4:2:0 chroma subsampling, sRGB
    /// colour (BT.709 primaries, sRGB transfer, BT.601 matrix, full range),
    /// at ``speed``.
    ///
    /// Alpha is kept (straight, as stored). Grey images are written as
    /// colour. An orientation other than ``Image/Orientation/up`` is written
    /// as `irot`/`imir` properties, so decoding gives back the same image.
    ///
    /// - Parameters:
    ///   - image: The image to encode.
    ///   - format: must be ``ImageFormat/avif``.
    ///   - quality: 0...1 (clamped; NaN counts as 0.9), mapped to AV1's
    ///     quantizer 63...0 as libavif 1.0's `quality` is: 1 is lossless
    ///     quantization (still 4:2:0, so not lossless pixels).
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` with libavif's message.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        guard format == .avif else { throw ImageError.encodingFailed(format, "AVIFCoder writes only AVIF") }
        return try Self.encodeImage(image, quality: quality, speed: speed, maxThreads: maxThreads)
    }

    /// libavif's message for `result`, with the decoder's or encoder's
    /// diagnostic detail when it has one.
    static func message(_ result: avifResult, diagnostics: UnsafeMutablePointer<avifDiagnostics>?) -> String {
        let summary = String(cString: avifResultToString(result))
        guard let diagnostics else { return summary }
        let detail = withUnsafeBytes(of: &diagnostics.pointee.error) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return detail.isEmpty ? summary : "\(summary): \(detail)"
    }
}
