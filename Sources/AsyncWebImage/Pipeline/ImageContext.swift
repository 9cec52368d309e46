public import Logging

/// Per-load settings that are values rather than switches: transformer,
/// decode size, cache policy, modifiers, and overrides of the loader's cache
/// and data loader. A typed struct where SDWebImage uses a dictionary.
///
/// Every property is optional: `nil` means "inherit". Precedence, highest
/// first: the loader's ``ImageOptionsProcessor`` › the context passed to the
/// call › the loader's ``ImageLoader/Configuration/defaultContext`` › the
/// documented defaults.
public struct ImageContext: Sendable {
    /// The values, boxed. A context is passed, defaulted and merged on every
    /// load; unboxed, each copy would retain or release a dozen optional
    /// existentials. Boxed it is one pointer, and `nil` when every value
    /// inherits (the common case), so an empty context costs nothing.
    private var box: Box?

    /// The stored values; immutable, so a box can be shared between copies.
    private final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private struct Values: Sendable {
        var transformer: (any ImageTransformer)?
        var thumbnailPixelSize: PixelSize?
        var preserveAspectRatio: Bool?
        var cacheKeyFilter: CacheKeyFilter?
        var cacheSerializer: (any ImageCacheSerializing)?
        var storeCacheType: ImageCacheType?
        var originalStoreCacheType: ImageCacheType?
        var queryCacheType: ImageCacheType?
        var requestModifier: (any RequestModifying)?
        var responseModifier: (any ResponseModifying)?
        var decryptor: (any ImageDataDecrypting)?
        var cache: ImageCache?
        var dataLoader: (any DataLoading)?
        var retryPolicy: RetryPolicy?
        var logger: Logger?
        var coversThumbnailPixelSize: Bool?

        var isEmpty: Bool {
            transformer == nil && thumbnailPixelSize == nil && preserveAspectRatio == nil && cacheKeyFilter == nil
                && cacheSerializer == nil && storeCacheType == nil && originalStoreCacheType == nil && queryCacheType == nil
                && requestModifier == nil && responseModifier == nil && decryptor == nil && cache == nil && dataLoader == nil
                && retryPolicy == nil && logger == nil && coversThumbnailPixelSize == nil
        }

        static let empty = Values(
            transformer: nil, thumbnailPixelSize: nil, preserveAspectRatio: nil, cacheKeyFilter: nil,
            cacheSerializer: nil, storeCacheType: nil, originalStoreCacheType: nil, queryCacheType: nil,
            requestModifier: nil, responseModifier: nil, decryptor: nil, cache: nil, dataLoader: nil
        )
    }

    private init(_ values: Values) {
        box = values.isEmpty ? nil : Box(values)
    }

    /// Setting a value builds a new box: contexts are built once and read
    /// many times, so writes may cost what reads must not.
    private mutating func update(_ change: (inout Values) -> Void) {
        var values = box?.values ?? .empty
        change(&values)
        self = ImageContext(values)
    }

    /// Transforms the decoded image; the result is cached under the original
    /// key plus ``ImageTransformer/key``. No transform by default.
    public var transformer: (any ImageTransformer)? {
        get { box?.values.transformer }
        set { update { $0.transformer = newValue } }
    }
    /// Decode a thumbnail no larger than this (displayed pixels) instead of
    /// the full image. Full size by default.
    public var thumbnailPixelSize: PixelSize? {
        get { box?.values.thumbnailPixelSize }
        set { update { $0.thumbnailPixelSize = newValue } }
    }
    /// With ``thumbnailPixelSize``: fit inside it keeping the aspect (`true`,
    /// the default) or produce exactly that size.
    public var preserveAspectRatio: Bool? {
        get { box?.values.preserveAspectRatio }
        set { update { $0.preserveAspectRatio = newValue } }
    }
    /// With ``thumbnailPixelSize`` and an aspect ratio kept: cover it (each
    /// side at least the thumbnail's) rather than fit inside, for a crop
    /// that follows (``ImageDecodingOptions/coversThumbnailPixelSize``).
    /// `false` by default.
    public var coversThumbnailPixelSize: Bool? {
        get { box?.values.coversThumbnailPixelSize }
        set { update { $0.coversThumbnailPixelSize = newValue } }
    }
    /// Maps the URL to its cache key. `url.absoluteString` by default.
    public var cacheKeyFilter: CacheKeyFilter? {
        get { box?.values.cacheKeyFilter }
        set { update { $0.cacheKeyFilter = newValue } }
    }
    /// Chooses the bytes written to the disk cache. The downloaded bytes by default.
    public var cacheSerializer: (any ImageCacheSerializing)? {
        get { box?.values.cacheSerializer }
        set { update { $0.cacheSerializer = newValue } }
    }
    /// Where the final (transformed) image is stored. `.all` by default.
    public var storeCacheType: ImageCacheType? {
        get { box?.values.storeCacheType }
        set { update { $0.storeCacheType = newValue } }
    }
    /// Where the original image is stored when a transformer is set (without
    /// one, ``storeCacheType`` applies). `.disk` by default: the encoded
    /// original is kept so other transforms need no download, but its pixels
    /// do not take memory.
    public var originalStoreCacheType: ImageCacheType? {
        get { box?.values.originalStoreCacheType }
        set { update { $0.originalStoreCacheType = newValue } }
    }
    /// Which caches are queried before loading. `.all` by default.
    public var queryCacheType: ImageCacheType? {
        get { box?.values.queryCacheType }
        set { update { $0.queryCacheType = newValue } }
    }
    /// Changes or refuses the request before it is sent.
    public var requestModifier: (any RequestModifying)? {
        get { box?.values.requestModifier }
        set { update { $0.requestModifier = newValue } }
    }
    /// Inspects the response head and may reject it.
    public var responseModifier: (any ResponseModifying)? {
        get { box?.values.responseModifier }
        set { update { $0.responseModifier = newValue } }
    }
    /// Turns downloaded data into the data to decode.
    public var decryptor: (any ImageDataDecrypting)? {
        get { box?.values.decryptor }
        set { update { $0.decryptor = newValue } }
    }
    /// The cache to use instead of the loader's.
    public var cache: ImageCache? {
        get { box?.values.cache }
        set { update { $0.cache = newValue } }
    }
    /// The data loader to use instead of the loader's.
    public var dataLoader: (any DataLoading)? {
        get { box?.values.dataLoader }
        set { update { $0.dataLoader = newValue } }
    }

    /// How often a failed download is tried again (see ``RetryPolicy``).
    /// The data loader's coalescer's policy by default, ``RetryPolicy/none`` unless configured.
    /// Subscribers sharing a download share the policy of the one that started it.
    public var retryPolicy: RetryPolicy? {
        get { box?.values.retryPolicy }
        set { update { $0.retryPolicy = newValue } }
    }

    /// The logger of this call's lines, in place of the loader's
    /// ``ImageLoader/Configuration/logger`` (as async-http-client takes one
    /// per request), so they carry the caller's metadata (a request ID, say).
    /// Work shared with other callers logs through the logger of the call
    /// that started it.
    public var logger: Logger? {
        get { box?.values.logger }
        set { update { $0.logger = newValue } }
    }

    /// Creates a context in which every value inherits.
    public init() {
        box = nil
    }

    /// Creates a context; every value inherits (`nil`) unless given.
    public init(
        transformer: (any ImageTransformer)? = nil,
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool? = nil,
        cacheKeyFilter: CacheKeyFilter? = nil,
        cacheSerializer: (any ImageCacheSerializing)? = nil,
        storeCacheType: ImageCacheType? = nil,
        originalStoreCacheType: ImageCacheType? = nil,
        queryCacheType: ImageCacheType? = nil,
        requestModifier: (any RequestModifying)? = nil,
        responseModifier: (any ResponseModifying)? = nil,
        decryptor: (any ImageDataDecrypting)? = nil,
        cache: ImageCache? = nil,
        dataLoader: (any DataLoading)? = nil,
        coversThumbnailPixelSize: Bool? = nil
    ) {
        self.init(Values(
            transformer: transformer,
            thumbnailPixelSize: thumbnailPixelSize,
            preserveAspectRatio: preserveAspectRatio,
            cacheKeyFilter: cacheKeyFilter,
            cacheSerializer: cacheSerializer,
            storeCacheType: storeCacheType,
            originalStoreCacheType: originalStoreCacheType,
            queryCacheType: queryCacheType,
            requestModifier: requestModifier,
            responseModifier: responseModifier,
            decryptor: decryptor,
            cache: cache,
            dataLoader: dataLoader,
            coversThumbnailPixelSize: coversThumbnailPixelSize
        ))
    }

    /// Whether every value inherits.
    var isEmpty: Bool { box == nil }

    /// This context with every `nil` value taken from `base`.
    public func merged(over base: ImageContext) -> ImageContext {
        guard let mine = box?.values else { return base }
        guard let theirs = base.box?.values else { return self }
        return ImageContext(Values(
            transformer: mine.transformer ?? theirs.transformer,
            thumbnailPixelSize: mine.thumbnailPixelSize ?? theirs.thumbnailPixelSize,
            preserveAspectRatio: mine.preserveAspectRatio ?? theirs.preserveAspectRatio,
            cacheKeyFilter: mine.cacheKeyFilter ?? theirs.cacheKeyFilter,
            cacheSerializer: mine.cacheSerializer ?? theirs.cacheSerializer,
            storeCacheType: mine.storeCacheType ?? theirs.storeCacheType,
            originalStoreCacheType: mine.originalStoreCacheType ?? theirs.originalStoreCacheType,
            queryCacheType: mine.queryCacheType ?? theirs.queryCacheType,
            requestModifier: mine.requestModifier ?? theirs.requestModifier,
            responseModifier: mine.responseModifier ?? theirs.responseModifier,
            decryptor: mine.decryptor ?? theirs.decryptor,
            cache: mine.cache ?? theirs.cache,
            dataLoader: mine.dataLoader ?? theirs.dataLoader,
            retryPolicy: mine.retryPolicy ?? theirs.retryPolicy,
            logger: mine.logger ?? theirs.logger,
            coversThumbnailPixelSize: mine.coversThumbnailPixelSize ?? theirs.coversThumbnailPixelSize
        ))
    }
}
