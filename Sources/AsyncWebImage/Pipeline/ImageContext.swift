/// Per-load settings that are values rather than switches: transformer,
/// decode size, cache policy, modifiers, and overrides of the loader's cache
/// and data loader. A typed struct where SDWebImage uses a dictionary.
///
/// Every property is optional: `nil` means "inherit". Precedence, highest
/// first: the loader's ``ImageOptionsProcessor`` › the context passed to the
/// call › the loader's ``ImageLoader/Configuration/defaultContext`` › the
/// documented defaults.
public struct ImageContext: Sendable {
    /// Transforms the decoded image; the result is cached under the original
    /// key plus ``ImageTransformer/key``. No transform by default.
    public var transformer: (any ImageTransformer)?
    /// Decode a thumbnail no larger than this (displayed pixels) instead of
    /// the full image. Full size by default.
    public var thumbnailPixelSize: PixelSize?
    /// With ``thumbnailPixelSize``: fit inside it keeping the aspect (`true`,
    /// the default) or produce exactly that size.
    public var preserveAspectRatio: Bool?
    /// Maps the URL to its cache key. `url.absoluteString` by default.
    public var cacheKeyFilter: CacheKeyFilter?
    /// Chooses the bytes written to the disk cache. The downloaded bytes by default.
    public var cacheSerializer: (any ImageCacheSerializing)?
    /// Where the final (transformed) image is stored. `.all` by default.
    public var storeCacheType: ImageCacheType?
    /// Where the original image is stored when a transformer is set (without
    /// one, ``storeCacheType`` applies). `.disk` by default: the encoded
    /// original is kept so other transforms need no download, but its pixels
    /// do not take memory.
    public var originalStoreCacheType: ImageCacheType?
    /// Which caches are queried before loading. `.all` by default.
    public var queryCacheType: ImageCacheType?
    /// Changes or refuses the request before it is sent.
    public var requestModifier: (any RequestModifying)?
    /// Inspects the response head and may reject it.
    public var responseModifier: (any ResponseModifying)?
    /// Turns downloaded data into the data to decode.
    public var decryptor: (any ImageDataDecrypting)?
    /// The cache to use instead of the loader's.
    public var cache: ImageCache?
    /// The data loader to use instead of the loader's.
    public var dataLoader: (any DataLoading)?

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
        dataLoader: (any DataLoading)? = nil
    ) {
        self.transformer = transformer
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.cacheKeyFilter = cacheKeyFilter
        self.cacheSerializer = cacheSerializer
        self.storeCacheType = storeCacheType
        self.originalStoreCacheType = originalStoreCacheType
        self.queryCacheType = queryCacheType
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.decryptor = decryptor
        self.cache = cache
        self.dataLoader = dataLoader
    }

    /// Whether every value inherits.
    var isEmpty: Bool {
        transformer == nil && thumbnailPixelSize == nil && preserveAspectRatio == nil && cacheKeyFilter == nil
            && cacheSerializer == nil && storeCacheType == nil && originalStoreCacheType == nil && queryCacheType == nil
            && requestModifier == nil && responseModifier == nil && decryptor == nil && cache == nil && dataLoader == nil
    }

    /// This context with every `nil` value taken from `base`.
    public func merged(over base: ImageContext) -> ImageContext {
        ImageContext(
            transformer: transformer ?? base.transformer,
            thumbnailPixelSize: thumbnailPixelSize ?? base.thumbnailPixelSize,
            preserveAspectRatio: preserveAspectRatio ?? base.preserveAspectRatio,
            cacheKeyFilter: cacheKeyFilter ?? base.cacheKeyFilter,
            cacheSerializer: cacheSerializer ?? base.cacheSerializer,
            storeCacheType: storeCacheType ?? base.storeCacheType,
            originalStoreCacheType: originalStoreCacheType ?? base.originalStoreCacheType,
            queryCacheType: queryCacheType ?? base.queryCacheType,
            requestModifier: requestModifier ?? base.requestModifier,
            responseModifier: responseModifier ?? base.responseModifier,
            decryptor: decryptor ?? base.decryptor,
            cache: cache ?? base.cache,
            dataLoader: dataLoader ?? base.dataLoader
        )
    }
}
