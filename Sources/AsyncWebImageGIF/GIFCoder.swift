public import Foundation
public import AsyncWebImage

/// GIF still decoding on giflib: the first frame, drawn on the file's
/// logical screen.
///
/// The result has the logical screen's size (the canvas every frame of an
/// animation is drawn on), with the first frame at its declared offset.
/// Canvas pixels the frame does not cover, and the frame's transparent
/// palette entry, are transparent black `(0, 0, 0, 0)`; the image is then
/// `.rgba8`. A first frame that covers the whole screen without a
/// transparent entry gives `.rgb8`. Interlaced frames are put in display
/// order. Parts of a frame past the screen's edge are cut off; palette
/// indices past the end of the colour table are opaque black. Animation
/// (later frames, delays, disposal) is not decoded here.
///
/// Thumbnails and ``ImageDecodingOptions/scaleDownLargeImages`` give the
/// canvas resampled with the package's area filter, without ever holding
/// the full-size canvas: each row is resampled as it is decoded (an
/// interlaced frame keeps its one-byte palette indices until its last pass).
///
/// Safety on hostile input: before anything is allocated for pixels, the
/// logical screen must be within ``ImageDecodingOptions/maxPixelCount``
/// (``ImageError/tooLarge(_:limit:actual:)``) — a file declaring a
/// 65535×65535 screen around a tiny frame is refused, not clamped to the
/// frame: the screen is the image's declared size, as a header is for the
/// other formats, and a browser would allocate it too. The frame itself is
/// held to the same limit before its LZW data is decoded, and is decoded a
/// row at a time. Data that ends early fails with
/// ``ImageError/undecodable(_:_:)`` whose message starts with "truncated".
///
/// ## Files giflib refuses
/// - **No colour table at all** (neither global nor local): GIF89a lets a
///   decoder use a table of its own. Every peer decodes such a file, each
///   with its own table: Pillow reads the index as a grey level,
///   ImageMagick 6.9 and libvips 8.14 (libnsgif) draw every pixel black.
///   This coder reads index *n* as the grey (*n*, *n*, *n*), as Pillow
///   does, so the picture stays visible (``MissingColorTablePolicy/grayLevels``,
///   the default); `GIFCoder(missingColorTable: .refuse)` fails such a file.
/// - **A minimum LZW code size of 9 to 11** (giflib stops at 8; codes stay
///   within the format's 12 bits): ImageMagick, Pillow and libvips decode
///   it, and so does this coder, with an LZW decoder of its own for those
///   frames. Sizes of 12 and more, which leave no room for a code table,
///   stay errors.
public struct GIFCoder: ImageDecoding {
    /// What a frame with neither a local nor a global colour table is drawn with.
    public enum MissingColorTablePolicy: Sendable, Hashable {
        /// Index *n* is the opaque grey (*n*, *n*, *n*), as Pillow reads it.
        case grayLevels
        /// The frame fails with ``ImageError/undecodable(_:_:)``.
        case refuse
    }

    /// What a frame without any colour table is drawn with;
    /// ``MissingColorTablePolicy/grayLevels`` by default.
    public var missingColorTable: MissingColorTablePolicy

    /// Creates the coder.
    ///
    /// - Parameter missingColorTable: ``MissingColorTablePolicy/grayLevels`` by default.
    public init(missingColorTable: MissingColorTablePolicy = .grayLevels) {
        self.missingColorTable = missingColorTable
    }

    /// Whether `data` starts with `GIF87a` or `GIF89a`.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .gif }

    /// Decodes the first frame on its logical screen, then applies the
    /// thumbnail and scale-down options.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when the screen or
    ///   the frame declares more than ``ImageDecodingOptions/maxPixelCount``
    ///   pixels; ``ImageError/undecodable(_:_:)`` with giflib's message otherwise.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let reader = try GIFFrameReader(data, missingColorTable: missingColorTable)
        let screen = reader.screenSize
        try options.checkPixelLimit(screen)
        if let target = options.targetSize(forStored: screen, orientation: .up),
           var thumbnail = GIFResamplingCanvas(size: screen, target: target, options: options) {
            let frame = try reader.nextFrame(
                maxPixelCount: options.maxPixelCount,
                begin: { frame throws(ImageError) in try thumbnail.begin(frame) },
                row: { y, indices in thumbnail.draw(row: y, indices: indices) }
            )
            guard frame != nil, let image = thumbnail.image() else { throw ImageError.undecodable(.gif, "no image in the file") }
            return image
        }
        var canvas = GIFCanvas(size: screen)
        let frame = try reader.nextFrame(
            maxPixelCount: options.maxPixelCount,
            begin: { frame throws(ImageError) in canvas.begin(frame) },
            row: { y, indices in canvas.draw(row: y, indices: indices) }
        )
        guard frame != nil, let image = canvas.image() else { throw ImageError.undecodable(.gif, "no image in the file") }
        guard let target = options.targetSize(forStored: image.size, orientation: .up) else { return image }
        return options.resampleThumbnail(image, to: target)
    }
}
