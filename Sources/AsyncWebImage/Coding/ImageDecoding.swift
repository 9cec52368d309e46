public import Foundation

/// Something that turns encoded data of some format into an ``Image``.
///
/// Decoders are values shared across tasks; `decode` runs off every actor, on
/// the loader's bounded decode pool, and may be called concurrently.
public protocol ImageDecoding: Sendable {
    /// Whether this decoder handles `data`, usually judged by magic bytes
    /// (see ``ImageFormat/detect(_:)``). Must be cheap.
    func canDecode(_ data: Data) -> Bool

    /// Decodes the whole image.
    ///
    /// - Throws: ``ImageError`` (`.undecodable`, `.tooLarge`, ...).
    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image

    /// The pixel size `data`'s header declares, read without decoding any
    /// pixels, or `nil` when this decoder cannot tell cheaply.
    ///
    /// The loader schedules a decode by it before the decode starts: images
    /// declaring more than ``ImageLoader/CPULimits/heavyPixelCount`` pixels
    /// take the CPU limiter's heavy lane
    /// (see ``ImageLoader/CPULimits``), so a few huge images
    /// cannot hold every CPU permit while small ones wait. Must be cheap (a
    /// header read); `nil` schedules the decode as a light one.
    func declaredSize(of data: Data) -> PixelSize?

    /// Throws when `data`'s structure, read without decoding any pixels,
    /// already breaks a limit of `options` that ``decode(_:options:)`` would
    /// refuse it for (say, a JPEG's scan count).
    ///
    /// The loader calls it for heavy images before they wait for the CPU
    /// limiter's heavy lane, so a file refused by its structure is refused
    /// at once instead of after the huge decodes queued before it. Must be
    /// cheap (a header or marker walk). Does nothing by default.
    ///
    /// - Throws: ``ImageError`` (``ImageError/tooLarge(_:limit:actual:)`` for a limit).
    func checkStructureLimits(of data: Data, options: ImageDecodingOptions) throws
}

extension ImageDecoding {
    /// Unknown unless a decoder reads its header.
    public func declaredSize(of data: Data) -> PixelSize? { nil }

    /// No structural check unless a decoder provides one; the decode checks everything.
    public func checkStructureLimits(of data: Data, options: ImageDecodingOptions) throws {}
}

/// Something that turns an ``Image`` into encoded data.
public protocol ImageEncoding: Sendable {
    /// Whether this encoder can write `format`.
    func canEncode(_ format: ImageFormat) -> Bool

    /// Encodes `image` as `format`.
    ///
    /// - Parameters:
    ///   - image: The image to encode.
    ///   - format: The format to write; one for which ``canEncode(_:)`` is `true`.
    ///   - quality: 0...1 for lossy formats (ignored by lossless ones).
    /// - Throws: ``ImageError/encodingFailed(_:_:)``.
    func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data
}

/// A decoder of the package's own whose format has useful previews: the
/// loader asks it for a ``ProgressiveImageDecoding`` when a load wants
/// previews (`.progressiveLoad`). Package-internal: previews are the
/// loader's business, and the coders that make them (JPEG, PNG, WebP,
/// JPEG XL) are this package's.
package protocol ProgressiveDecoderProviding: ImageDecoding {
    /// A decoder for the bytes of a download in progress, or `nil` when
    /// these options or this build have no useful previews.
    func makeProgressiveDecoder(options: ImageDecodingOptions) -> (any ProgressiveImageDecoding)?
}

/// Makes previews from the bytes of a download in progress.
///
/// Fed the bytes received so far each time more arrive, it returns a preview
/// only when one is worth making: a new progressive JPEG scan, a new Adam7
/// pass, or (for sequential images) more rows than the last preview had.
/// It is a value with its own state; one instance serves one transfer.
package protocol ProgressiveImageDecoding: Sendable {
    /// Returns a preview for `data` (all bytes received so far, growing from
    /// call to call), or `nil` when nothing new is worth decoding yet.
    ///
    /// A preview has the size the final image will have (or the thumbnail
    /// size) and ``Image/isPreview`` set.
    /// - Throws: ``ImageError`` when the data can already be seen to be bad.
    mutating func preview(for data: Data) throws -> Image?
}
