/// A thumbnail decoded at the size it is shown: the one setting for
/// "a 256-pixel square crop" or "at most 512 pixels on the longer side".
///
/// The decoder scales while it decodes where the format allows it
/// (JPEG's DCT scaling, PNG's row shrinking, HEIC's embedded thumbnail), so
/// a thumbnail of a large photo costs a fraction of a full decode and never
/// holds the full-size pixels. Images already smaller are not enlarged.
///
/// ```swift
/// let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 256, height: 256, contentMode: .fill))
/// let square = try await loader.image(for: request)   // exactly 256 × 256
/// ```
public struct ThumbnailOptions: Sendable, Hashable {
    /// How the image is fitted to ``size``.
    public enum ContentMode: Sendable, Hashable {
        /// Inside the size, the aspect ratio kept: the longer side (relative
        /// to the box) meets it. The default.
        case fit
        /// Exactly the size: scaled to cover it, the aspect ratio kept, then
        /// the centre cropped to it — a square avatar from any photo.
        case fill
        /// Scaled to cover the size, the aspect ratio kept, not cropped: for
        /// a crop of your own afterwards (a gravity, a face).
        case cover
        /// Exactly the size, the aspect ratio ignored.
        case stretch
    }

    /// The box, in displayed (oriented) pixels.
    public var size: PixelSize
    /// How the image meets ``size``: ``ContentMode/fit`` by default.
    public var contentMode: ContentMode

    /// A thumbnail fitted to `size` as `contentMode` says.
    public init(size: PixelSize, contentMode: ContentMode = .fit) {
        self.size = size
        self.contentMode = contentMode
    }

    /// A thumbnail fitted to `width` × `height` as `contentMode` says.
    public init(width: Int, height: Int, contentMode: ContentMode = .fit) {
        self.init(size: PixelSize(width: width, height: height), contentMode: contentMode)
    }

    /// A thumbnail no larger than `maxPixelSize` on either side, aspect
    /// ratio kept (SDWebImage's `thumbnailPixelSize` with its default).
    public init(maxPixelSize: Int) {
        self.init(size: PixelSize(width: maxPixelSize, height: maxPixelSize), contentMode: .fit)
    }

    /// The transform that finishes a ``ContentMode/fill`` thumbnail: the
    /// centre crop to ``size`` (a cover decode is within a pixel or so of
    /// it, so the resample is a crop in all but name); `nil` otherwise.
    var finishingTransformer: (any ImageTransformer)? {
        contentMode == .fill ? ImageTransformers.Resize(size: size, mode: .fill) : nil
    }

    /// Sets the thumbnail fields of `options` for this thumbnail.
    func apply(to options: inout ImageDecodingOptions) {
        options.thumbnailPixelSize = size
        options.preserveAspectRatio = contentMode != .stretch
        options.coversThumbnailPixelSize = contentMode == .fill || contentMode == .cover
    }
}
