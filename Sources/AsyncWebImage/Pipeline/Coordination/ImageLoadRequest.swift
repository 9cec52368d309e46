import Foundation

/// One load with everything resolved: effective options and context, the
/// request as it will be sent, its identity and keys (``ImageRequestKeys``),
/// and the decode options. Built once per call by ``ImageLoader``, after the
/// request modifier, so its keys are resolved once; the only change
/// afterwards is a switch to a `Vary` variant's keys.
struct ImageLoadRequest: Sendable {
    let url: URL
    let options: ImageOptions
    let context: ImageContext
    /// Every key of this load, from the request as it will be sent.
    private(set) var keys: ImageRequestKeys
    let decodingOptions: ImageDecodingOptions
    /// The request as it will be sent (after the request modifier).
    private(set) var dataRequest: DataRequest
    let cache: ImageCache
    /// The thumbnail's finishing crop, then the context's transformer: what
    /// the load applies and keys its result by.
    let transformer: (any ImageTransformer)?
    /// The secondary key of the `Vary` variant this load selects, when it is
    /// not the one under the primary keys (``ImageRequestKeys``'s `varyKey`).
    private(set) var varyKey: String?

    /// - Parameter known: The keys of this request, when the caller has
    ///   resolved them already (the memory fast path); resolved here otherwise.
    init(
        url: URL, options: ImageOptions, context: ImageContext, decodingOptions: ImageDecodingOptions, dataRequest: DataRequest,
        cache: ImageCache, keys known: ImageRequestKeys? = nil
    ) {
        self.url = url
        self.options = options
        self.context = context
        self.decodingOptions = decodingOptions
        self.dataRequest = dataRequest
        self.cache = cache
        let transformer = ImageRequest.effectiveTransformer(context.transformer, thumbnail: context.thumbnail)
        self.transformer = transformer
        keys = known ?? Self.keys(
            url: url, options: options, context: context, transformer: transformer, decodingOptions: decodingOptions,
            dataRequest: dataRequest, varyKey: nil
        )
    }

    private static func keys(
        url: URL, options: ImageOptions, context: ImageContext, transformer: (any ImageTransformer)?,
        decodingOptions: ImageDecodingOptions, dataRequest: DataRequest, varyKey: String?
    ) -> ImageRequestKeys {
        ImageRequestKeys(
            url: url, filter: context.cacheKeyFilter, variant: dataRequest.key.variant,
            decodingSuffix: decodingOptions.cacheKeySuffix, transformer: transformer,
            transformsAnimation: options.contains(.transformAnimatedImage), varyKey: varyKey
        )
    }

    var queryCacheType: ImageCacheType { context.queryCacheType }
    var storeCacheType: ImageCacheType { context.storeCacheType }
    /// Where the original goes: with a transformer, `originalStoreCacheType`
    /// (`.disk` by default); without one the original is the result.
    var originalStoreCacheType: ImageCacheType {
        transformer == nil ? storeCacheType : context.originalStoreCacheType
    }
    var wantsPixels: Bool { !options.contains(.avoidDecodeImage) }

    /// The key of the shared work for this request (``ImageRequestKeys/TaskKey``).
    var taskKey: ImageRequestKeys.TaskKey {
        keys.taskKey(request: dataRequest.key, decodes: wantsPixels, cacheOnly: options.contains(.fromCacheOnly))
    }
}

extension ImageLoadRequest {
    /// This request on the keys of the `Vary` variant it selects among
    /// responses that vary on `names` (RFC 9111 §4.1): every tier looks up
    /// and stores that variant under its own keys.
    func selectingVariant(varyingOn names: [String]) -> ImageLoadRequest {
        var copy = self
        copy.varyKey = HTTPVary.secondaryKey(names: names, headers: dataRequest.headers)
        copy.keys = Self.keys(
            url: url, options: options, context: context, transformer: transformer, decodingOptions: decodingOptions,
            dataRequest: dataRequest, varyKey: copy.varyKey
        )
        return copy
    }
}
