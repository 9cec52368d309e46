public import Foundation

/// One image to load: the URL, the switches and settings of the load, and
/// its priority — the value every call of ``ImageLoader`` takes.
///
/// ```swift
/// let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 256, height: 256, contentMode: .fill))
/// let image = try await loader.image(for: request)
/// for try await preview in loader.images(for: request.with(options: .progressiveLoad)) { show(preview) }
/// ```
///
/// A request is a value: build it once, keep it in a list to prefetch, pass
/// it to as many calls as you like. Two requests are equal (and hash alike)
/// when they name the same result by the loader's one key resolver: the
/// URL after the ``ImageContext/cacheKeyFilter``, the decode options (the
/// thumbnail, ``ImageOptions`` that change the decode) and the transformer's
/// ``ImageTransformer/key`` — plus the options and priority, which change
/// how it loads. What a ``ImageContext/requestModifier`` adds (credentials)
/// is part of the identity the loader caches under, but it is only known
/// when the modifier runs, so it does not take part here.
public struct ImageRequest: Sendable {
    /// How urgently a request's download starts among those waiting for a
    /// connection slot: the one priority type of the library, the data
    /// request's (``DataRequest/Priority``).
    public typealias Priority = DataRequest.Priority

    /// The image's URL (`http` or `https` unless the data loader allows others).
    public var url: URL
    /// Switches for this load.
    public var options: ImageOptions
    /// Settings for this load, over the loader's defaults.
    public var context: ImageContext
    /// When its download starts among those waiting: ``DataRequest/Priority/normal`` by default.
    public var priority: Priority

    /// A request for `url`.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - options: Switches for this load; none by default.
    ///   - context: Settings for this load; every value inherits by default.
    ///   - priority: ``DataRequest/Priority/normal`` by default.
    public init(url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(), priority: Priority = .normal) {
        self.url = url
        self.options = options
        self.context = context
        self.priority = priority
    }

    /// A request for `url` decoded as a thumbnail: the common case in one call.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - thumbnail: The size and fit to decode at.
    ///   - options: Switches for this load; none by default.
    ///   - priority: ``DataRequest/Priority/normal`` by default.
    public init(url: URL, thumbnail: ThumbnailOptions, options: ImageOptions = [], priority: Priority = .normal) {
        self.init(url: url, options: options, context: ImageContext(thumbnail: thumbnail), priority: priority)
    }

    /// A request for the URL `string` spells.
    ///
    /// - Throws: ``ImageError/invalidURL(_:)`` when `string` is not a URL.
    public init(string: String, options: ImageOptions = [], context: ImageContext = ImageContext(), priority: Priority = .normal) throws(ImageError) {
        guard let url = URL(string: string) else { throw .invalidURL(string) }
        self.init(url: url, options: options, context: context, priority: priority)
    }

    /// This request with `options` in place of its own.
    public func with(options: ImageOptions) -> ImageRequest {
        var copy = self
        copy.options = options
        return copy
    }

    /// This request with `priority` in place of its own.
    public func with(priority: Priority) -> ImageRequest {
        var copy = self
        copy.priority = priority
        return copy
    }

    /// The keys of this request alone (no loader defaults, no modifier): its identity as a value.
    var identity: ImageRequestKeys {
        var decoding = ImageDecodingOptions()
        context.thumbnail?.apply(to: &decoding)
        decoding.scaleDownLargeImages = options.contains(.scaleDownLargeImages)
        decoding.decodesFirstFrameOnly = options.contains(.decodeFirstFrameOnly)
        decoding.preloadsAllFrames = options.contains(.preloadAllFrames)
        return ImageRequestKeys(
            url: url, filter: context.cacheKeyFilter, variant: .plain, decodingSuffix: decoding.cacheKeySuffix,
            transformer: ImageRequest.effectiveTransformer(context.transformer, thumbnail: context.thumbnail),
            transformsAnimation: options.contains(.transformAnimatedImage)
        )
    }

    /// The transform a load applies: the thumbnail's finishing crop
    /// (``ThumbnailOptions/ContentMode/fill``), then the context's transformer.
    static func effectiveTransformer(_ transformer: (any ImageTransformer)?, thumbnail: ThumbnailOptions?) -> (any ImageTransformer)? {
        guard let finishing = thumbnail?.finishingTransformer else { return transformer }
        guard let transformer else { return finishing }
        return ImageTransformers.Pipeline([finishing, transformer])
    }
}

extension ImageRequest: Hashable {
    public static func == (lhs: ImageRequest, rhs: ImageRequest) -> Bool {
        lhs.options == rhs.options && lhs.priority == rhs.priority && lhs.identity.resultKey == rhs.identity.resultKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(options)
        hasher.combine(priority)
        hasher.combine(identity.resultKey)
    }
}
