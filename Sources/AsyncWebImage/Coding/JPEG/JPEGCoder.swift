public import Foundation

/// JPEG decoding and encoding on libjpeg-turbo's TurboJPEG API.
///
/// Decodes baseline, progressive and arithmetic-coded JPEGs, any chroma
/// subsampling; grayscale to ``PixelFormat/gray8``, everything else to
/// ``PixelFormat/rgb8``, including CMYK and YCCK (Adobe-inverted) files,
/// converted to RGB. Converts pixels to sRGB through an embedded ICC profile
/// (APP2 chunks; a CMYK profile replaces the naive CMYK formula), for full
/// decodes and thumbnails, not previews (`ColorManager`,
/// ``ImageDecodingOptions/keepsColorProfile``). Reads the EXIF orientation into ``Image/orientation``
/// (and applies it with ``ImageDecodingOptions/applyOrientation``).
/// Thumbnails and scale-down decode at the smallest DCT scale that still
/// covers the target, then resample exactly. A progressive file decoded at
/// 1/8 scale first drops the AC scans that scale never reads (same pixels,
/// a fraction of the entropy decoding).
///
/// ## Truncated and corrupt data
/// A full decode never returns a half-grey image. Data that does not reach
/// an EOI marker fails before any pixel memory is allocated; libjpeg
/// warnings that mean lost pixels (premature end of data, bad Huffman or
/// arithmetic codes, missing restart markers) fail with libjpeg's message.
/// Warnings that cost nothing (extraneous bytes between markers, an unknown
/// JFIF revision or Adobe transform, odd SOS parameters, a bad ICC marker)
/// are accepted, so valid-but-sloppy camera files decode; bytes left over
/// inside a scan, before a restart marker, are damage and fail. Garbage that
/// libjpeg decodes as valid codes in a scan without restart markers cannot
/// be told from a good file and decodes (as in browsers and ImageIO). A
/// sequential file missing only its final EOI marker decodes: it is decoded
/// with the marker appended, and a scan that really ends early still warns
/// and fails (a progressive file cut between scans cannot be told from a
/// complete one that way, so without EOI it fails). The
/// progressive decoder from `makeProgressiveDecoder(options:)` (the loader's, with `.progressiveLoad`)
/// turns partial data into previews instead.
///
/// ### Why refuse, and how not to
/// Browsers show whatever part of a damaged JPEG decodes, and so do djpeg
/// and libvips by default (a warning, grey or smeared where data is
/// missing; libvips refuses only with `fail_on`). A library that feeds
/// caches and thumbnail servers should not store a half-grey image as the
/// final one, so ``DamagedDataPolicy/refuse`` is the default. Register
/// `JPEGCoder(damagedDataPolicy: .decodeAvailable)` (it goes in front of
/// the built-in one) to decode as djpeg and libvips do:
///
/// ```swift
/// configuration.coders.add(JPEGCoder(damagedDataPolicy: .decodeAvailable))
/// ```
///
/// - Important: a stateless value: every call makes its own TurboJPEG
///   handle, so one coder may decode and encode on any number of threads.
public struct JPEGCoder: ImageDecoding, ImageEncoding {
    /// What a full decode does with data libjpeg can only decode with a
    /// warning that costs pixels: a file cut short (no EOI marker, a scan
    /// that ends early), bad entropy codes, bytes left over inside a scan.
    public enum DamagedDataPolicy: Sendable, Hashable {
        /// Fail with ``ImageError/undecodable(_:_:)`` (the default): a final
        /// image is never partly grey. Harmless warnings (bytes between
        /// segments, odd JFIF or Adobe fields) and a sequential file
        /// missing only its EOI marker still decode.
        case refuse
        /// Decode what libjpeg decodes, filling what is missing as it does
        /// (grey), as djpeg, browsers and libvips's default do. Data that is
        /// not a JPEG, or has no frame header, still fails.
        case decodeAvailable
    }

    /// What a full decode does with damaged or truncated data;
    /// ``DamagedDataPolicy/refuse`` by default.
    public var damagedDataPolicy: DamagedDataPolicy

    /// Creates the coder.
    ///
    /// - Parameter damagedDataPolicy: ``DamagedDataPolicy/refuse`` by default.
    public init(damagedDataPolicy: DamagedDataPolicy = .refuse) {
        self.damagedDataPolicy = damagedDataPolicy
    }

    /// Whether `data` starts with the JPEG signature (`FF D8 FF`).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    /// Decodes a complete JPEG file.
    ///
    /// - Parameters:
    ///   - data: the whole file.
    ///   - options: thumbnail size, scale-down, pixel limit, orientation.
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when the header
    ///   declares more than ``ImageDecodingOptions/maxPixelCount`` pixels
    ///   (checked before any pixel memory is allocated);
    ///   ``ImageError/undecodable(_:_:)`` with libjpeg's message for data
    ///   that is not JPEG, is truncated or is corrupt.
    /// - Complexity: one TurboJPEG decode into the image's own storage (no
    ///   extra copy), plus a resample for thumbnails and an orientation pass
    ///   when applying it.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes { bytes throws(ImageError) in
            try Self.decodeImage(bytes, options: options, completeness: damagedDataPolicy == .refuse ? .required : .bestEffort)
        }
    }

    /// A progressive decoder for a download of JPEG data: previews from
    /// libjpeg's buffered-image mode as scans arrive.
    package func makeProgressiveDecoder(options: ImageDecodingOptions) -> (any ProgressiveImageDecoding)? {
        JPEGProgressiveDecoder(options: options)
    }

    /// Whether `format` is ``ImageFormat/jpeg``.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .jpeg }

    /// Encodes `image` as a baseline JPEG with 4:2:0 chroma subsampling
    /// (grayscale images as single-channel JPEGs).
    ///
    /// Alpha cannot be stored in JPEG, so ``PixelFormat/rgba8`` and
    /// ``PixelFormat/grayAlpha8`` images are flattened over white, the way
    /// a transparent PNG looks on a web page. An orientation other than
    /// ``Image/Orientation/up`` is written as an EXIF APP1 segment, so the
    /// file displays (and decodes back) the same way. An ``Image/iccProfile``
    /// is written as APP2 `ICC_PROFILE` segments (none for sRGB images).
    ///
    /// - Parameters:
    ///   - image: The image to encode.
    ///   - format: must be ``ImageFormat/jpeg``.
    ///   - quality: 0...1, mapped linearly to libjpeg's 1...100 (0.9 → 90);
    ///     values outside are clamped.
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` with TurboJPEG's message,
    ///   or for a format other than JPEG or sides above 65535 pixels.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        guard format == .jpeg else { throw ImageError.encodingFailed(format, "JPEGCoder writes only JPEG") }
        return try Self.encodeImage(image, quality: quality)
    }
}

/// Previews while the bytes arrive (`.progressiveLoad`).
extension JPEGCoder: ProgressiveDecoderProviding {}
