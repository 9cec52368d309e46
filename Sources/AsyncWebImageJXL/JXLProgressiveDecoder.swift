package import Foundation
package import AsyncWebImage

/// Previews of a JPEG XL download in progress.
///
/// Each call decodes the bytes received so far with libjxl, which renders
/// as much as they hold (the upsampled DC once it has arrived, then the
/// full frame); a preview is returned only when a progressive step was
/// reached that the last preview did not have, and at most once per 25 %
/// more data, so a slow download does not decode the same prefix again
/// and again. Previews are not colour managed, as for every format.
package struct JXLProgressiveDecoder: ProgressiveImageDecoding {
    private let options: ImageDecodingOptions
    private var steps = 0
    private var lastCount = 0

    /// Creates a decoder for one transfer, with `options`' thumbnail size and limits.
    package init(options: ImageDecodingOptions) {
        self.options = options
    }

    /// A preview when the data reaches a new progressive step, else `nil`.
    ///
    /// - Throws: ``ImageError`` when the data can already be seen to be bad
    ///   or over the limits.
    package mutating func preview(for data: Data) throws -> Image? {
        guard data.count >= lastCount + lastCount / 4, !data.isEmpty else { return nil }
        lastCount = data.count
        let after = steps
        let options = options
        guard let (image, reached) = try data.withUnsafeBytes({ bytes throws(ImageError) in
            try JXLCoder.decodeImage(bytes, options: options, mode: .preview(after: after))
        }) else { return nil }
        steps = reached
        return image
    }
}
