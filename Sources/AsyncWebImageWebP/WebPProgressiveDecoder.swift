package import Foundation
package import AsyncWebImage

/// Makes previews of a WebP while it downloads, with libwebp's incremental
/// decoder (`WebPIDecoder`).
///
/// Each call hands libwebp only the bytes that arrived since the last one,
/// so the whole download is decoded once, however finely it arrives. A
/// preview is returned when at least an eighth of the rows more than in the
/// last preview have been decoded (or the last rows): rows not yet decoded
/// are zero, transparent for images with alpha and black otherwise.
///
/// Previews have the size the decode options ask for (libwebp's scaled
/// decode, as ``WebPCoder`` does), the final image's pixel format, and
/// ``Image/isPreview`` set. The EXIF chunk usually follows the image data,
/// so a preview's orientation is the one known from the bytes received.
///
/// - Important: The decoding state is a reference: copies of one decoder
///   share it (under a lock), as one download feeds one decoder.
package struct WebPProgressiveDecoder: ProgressiveImageDecoding {
    /// The options every preview is decoded with.
    package let options: ImageDecodingOptions
    private let session: WebPIncrementalSession

    /// Creates a decoder for one download.
    package init(options: ImageDecodingOptions = .init()) {
        self.options = options
        self.session = WebPIncrementalSession()
    }

    /// Returns a preview of the WebP in `data` (all bytes received so far),
    /// or `nil` when nothing new is worth showing yet.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` as soon as the
    ///   header declares more pixels than allowed;
    ///   ``ImageError/undecodable(_:_:)`` when the bytes received are already
    ///   wrong (not WebP, animated, a corrupt bitstream). Data that merely
    ///   stops is never an error here.
    package mutating func preview(for data: Data) throws -> Image? {
        let preview = try data.withUnsafeBytes { bytes in
            try session.preview(for: bytes, options: options)
        }
        guard let preview else { return nil }
        return options.applyOrientation ? preview.applyingOrientation() : preview
    }
}
