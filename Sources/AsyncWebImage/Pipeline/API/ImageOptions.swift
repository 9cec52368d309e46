/// Switches that change how one load behaves: the server-meaningful subset
/// of SDWebImage's `SDWebImageOptions`, with the same meanings.
public struct ImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    /// Creates options from their raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Load a URL even if it failed before for a reason retrying cannot fix
    /// (otherwise it fails at once with ``ImageError/blockedURL(_:)``).
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// The download starts after waiting downloads of normal priority: set
    /// from ``ImageRequest/priority``, the one place a caller says it.
    static let lowPriority = ImageOptions(rawValue: 1 << 1)
    /// The download starts before waiting downloads of normal priority: set
    /// from ``ImageRequest/priority``.
    static let highPriority = ImageOptions(rawValue: 1 << 2)
    /// Decode previews while bytes arrive (progressive JPEG scans, Adam7
    /// passes, rows of sequential images) and deliver them before the final image.
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 3)
    /// Deliver the cached image, then revalidate with the server (a
    /// conditional request when an `ETag`/`Last-Modified` was stored) and
    /// deliver the new image too if it changed.
    public static let refreshCached = ImageOptions(rawValue: 1 << 4)
    /// Send and store cookies for this request (off by default: a server
    /// embedding the loader must not mix its users' cookies).
    public static let handleCookies = ImageOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that fail verification. Testing only.
    public static let allowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 6)
    /// Shrink images whose decoded pixels would exceed the loader's
    /// decoded-bytes limit (60 MiB by default).
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 7)
    /// Also read the encoded data from disk when the image is found in memory,
    /// so ``ImageResponse/data`` is filled.
    public static let queryMemoryData = ImageOptions(rawValue: 1 << 8)
    /// Only look in the caches; a miss fails with ``ImageError/cacheMiss``
    /// and makes no request.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 9)
    /// Skip the cache lookup and always download (the result is still stored).
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 10)
    /// No pixels are decoded: the load ends with the encoded data only. Set
    /// by ``ImageLoader/data(for:)`` and data-only prefetches, never by a caller.
    static let avoidDecodeImage = ImageOptions(rawValue: 1 << 11)
    /// Decode only the first frame of animated formats.
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 12)
    /// Finish only after the data is written to the disk cache.
    public static let waitStoreCache = ImageOptions(rawValue: 1 << 13)
    /// Apply the transformer to animated images too (frame by frame).
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 14)
    /// Decode every frame of an animated image up front and keep them all
    /// (``AnimatedImage/preloadAllFrames()``), instead of on demand within
    /// the frame buffer's bound.
    public static let preloadAllFrames = ImageOptions(rawValue: 1 << 15)

    /// The bits the pipeline sets itself (priority, data-only), never a caller.
    static let pipelineOnly: ImageOptions = [.lowPriority, .highPriority, .avoidDecodeImage]
}
