public import Logging

/// Per-load settings that are values rather than switches: transformer,
/// thumbnail, cache policy, modifiers, and overrides of the loader's cache
/// and data loader. A typed struct where SDWebImage uses a dictionary.
///
/// A value left unset inherits. Precedence, highest first: the loader's
/// ``ImageLoader/Configuration/optionsProcessor`` › the request's context ›
/// the loader's ``ImageLoader/Configuration/defaultContext`` › the
/// documented defaults. Reading an unset value gives what it inherits from
/// the defaults (`.all` for ``storeCacheType``, say), never an optional: so
/// `context.storeCacheType = .none` means "store nowhere", never "inherit".
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

    /// Every value, `nil` when it inherits.
    struct Values: Sendable {
        var transformer: (any ImageTransformer)?
        var thumbnail: ThumbnailOptions?
        var cacheKeyFilter: CacheKeyFilter?
        var cacheSerializer: CacheSerializer?
        var storeCacheType: ImageCacheType?
        var originalStoreCacheType: ImageCacheType?
        var queryCacheType: ImageCacheType?
        var requestModifier: RequestModifier?
        var responseModifier: ResponseModifier?
        var decryptor: ImageDataDecryptor?
        var cache: ImageCache?
        var dataLoader: (any DataLoading)?
        var retryPolicy: DataRequest.RetryPolicy?
        var logger: Logger?

        var isEmpty: Bool {
            transformer == nil && thumbnail == nil && cacheKeyFilter == nil && cacheSerializer == nil
                && storeCacheType == nil && originalStoreCacheType == nil && queryCacheType == nil
                && requestModifier == nil && responseModifier == nil && decryptor == nil && cache == nil
                && dataLoader == nil && retryPolicy == nil && logger == nil
        }

        static let empty = Values()

        /// These values with every `nil` taken from `base`.
        func merged(over base: Values) -> Values {
            Values(
                transformer: transformer ?? base.transformer,
                thumbnail: thumbnail ?? base.thumbnail,
                cacheKeyFilter: cacheKeyFilter ?? base.cacheKeyFilter,
                cacheSerializer: cacheSerializer ?? base.cacheSerializer,
                storeCacheType: storeCacheType ?? base.storeCacheType,
                originalStoreCacheType: originalStoreCacheType ?? base.originalStoreCacheType,
                queryCacheType: queryCacheType ?? base.queryCacheType,
                requestModifier: requestModifier ?? base.requestModifier,
                responseModifier: responseModifier ?? base.responseModifier,
                decryptor: decryptor ?? base.decryptor,
                cache: cache ?? base.cache,
                dataLoader: dataLoader ?? base.dataLoader,
                retryPolicy: retryPolicy ?? base.retryPolicy,
                logger: logger ?? base.logger
            )
        }
    }

    private init(_ values: Values) {
        box = values.isEmpty ? nil : Box(values)
    }

    /// The values as set, `nil` where they inherit (for merging).
    var values: Values { box?.values ?? .empty }

    /// The query tiers when set, read in place: ``values`` copies every
    /// value (a dozen retains), and the memory fast path asks this on every hit.
    var queryCacheTypeIfSet: ImageCacheType? { box?.values.queryCacheType }

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

    /// Decode a thumbnail of this size instead of the full image (see
    /// ``ThumbnailOptions``). Full size by default.
    public var thumbnail: ThumbnailOptions? {
        get { box?.values.thumbnail }
        set { update { $0.thumbnail = newValue } }
    }

    /// Maps the URL to its cache key. `url.absoluteString` by default.
    public var cacheKeyFilter: CacheKeyFilter? {
        get { box?.values.cacheKeyFilter }
        set { update { $0.cacheKeyFilter = newValue } }
    }

    /// Chooses the bytes written to the disk cache. The downloaded bytes by default.
    public var cacheSerializer: CacheSerializer? {
        get { box?.values.cacheSerializer }
        set { update { $0.cacheSerializer = newValue } }
    }

    /// Where the final (transformed) image is stored. ``ImageCacheType/all`` by default.
    public var storeCacheType: ImageCacheType {
        get { box?.values.storeCacheType ?? .all }
        set { update { $0.storeCacheType = newValue } }
    }

    /// Where the original image is stored when a transformer is set (without
    /// one, ``storeCacheType`` applies). ``ImageCacheType/disk`` by default:
    /// the encoded original is kept so other transforms need no download,
    /// but its pixels do not take memory.
    public var originalStoreCacheType: ImageCacheType {
        get { box?.values.originalStoreCacheType ?? .disk }
        set { update { $0.originalStoreCacheType = newValue } }
    }

    /// Which caches are queried before loading. ``ImageCacheType/all`` by default.
    public var queryCacheType: ImageCacheType {
        get { box?.values.queryCacheType ?? .all }
        set { update { $0.queryCacheType = newValue } }
    }

    /// Changes or refuses the request before it is sent.
    public var requestModifier: RequestModifier? {
        get { box?.values.requestModifier }
        set { update { $0.requestModifier = newValue } }
    }

    /// Inspects the response head and may reject it.
    public var responseModifier: ResponseModifier? {
        get { box?.values.responseModifier }
        set { update { $0.responseModifier = newValue } }
    }

    /// Turns downloaded data into the data to decode.
    public var decryptor: ImageDataDecryptor? {
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

    /// How often a failed download is tried again, in place of the loader's
    /// ``ImageLoader/Configuration/retryPolicy``. Subscribers sharing a
    /// download share the policy of the one that started it.
    public var retryPolicy: DataRequest.RetryPolicy? {
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

    /// Creates a context; every value inherits unless given.
    ///
    /// The cache tiers (``storeCacheType``, ``originalStoreCacheType``,
    /// ``queryCacheType``) are set through their properties: as parameters
    /// with a default of "inherit" they would be optionals, where `.none`
    /// silently means "inherit" rather than "no tier".
    public init(
        transformer: (any ImageTransformer)? = nil,
        thumbnail: ThumbnailOptions? = nil,
        cacheKeyFilter: CacheKeyFilter? = nil,
        cacheSerializer: CacheSerializer? = nil,
        requestModifier: RequestModifier? = nil,
        responseModifier: ResponseModifier? = nil,
        decryptor: ImageDataDecryptor? = nil,
        cache: ImageCache? = nil,
        dataLoader: (any DataLoading)? = nil,
        retryPolicy: DataRequest.RetryPolicy? = nil,
        logger: Logger? = nil
    ) {
        self.init(Values(
            transformer: transformer,
            thumbnail: thumbnail,
            cacheKeyFilter: cacheKeyFilter,
            cacheSerializer: cacheSerializer,
            requestModifier: requestModifier,
            responseModifier: responseModifier,
            decryptor: decryptor,
            cache: cache,
            dataLoader: dataLoader,
            retryPolicy: retryPolicy,
            logger: logger
        ))
    }

    /// Whether every value inherits.
    var isEmpty: Bool { box == nil }

    /// This context with every value it does not set taken from `base`.
    public func merged(over base: ImageContext) -> ImageContext {
        guard let mine = box?.values else { return base }
        guard let theirs = base.box?.values else { return self }
        return ImageContext(mine.merged(over: theirs))
    }
}
