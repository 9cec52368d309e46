import Foundation
import Logging
import Tracing

extension ImageLoader {
    /// Resolves a call into an ``ImageLoadRequest``, once: the precedence
    /// chain, the URL checks, the request as it will be sent — the request
    /// modifier (context over configuration) runs here, before any cache
    /// lookup, so the header fields it adds (credentials, say) are part of
    /// the request's identity (``ImageRequestKeys``) for every cache tier
    /// and both coalescers — and then its keys. Runs no user code but the
    /// options processor, the cache key filter and the request modifier.
    ///
    /// - Parameter known: The keys the memory fast path resolved for this
    ///   call (it runs only for calls with no options processor, request
    ///   modifier or client certificate, whose keys nothing below changes):
    ///   used as they are, not resolved again.
    /// - Throws: ``ImageError/unsupportedScheme(_:)``, ``ImageError/invalidURL(_:)``,
    ///   ``ImageError/requestRejected(_:)`` when the modifier refuses the
    ///   request, the ``ImageError`` it throws (an invalid header field),
    ///   `CancellationError`.
    func makeRequest(_ url: URL, options: ImageOptions, context: ImageContext, keys known: ImageRequestKeys? = nil) async throws -> ImageLoadRequest {
        var options = options
        // Merging builds a new context; skip it in the common case of one side empty.
        var context = defaultContextIsEmpty ? context : context.merged(over: configuration.defaultContext)
        var url = url
        if let processor = configuration.optionsProcessor {
            let priority: ImageRequest.Priority = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
            let processed = processor(ImageRequest(url: url, options: options.subtracting(.pipelineOnly), context: context, priority: priority))
            url = processed.url
            context = processed.context
            options = Self.loadOptions(processed, decodes: !options.contains(.avoidDecodeImage))
        }
        try validate(url)
        var dataRequest = Self.dataRequest(url, options: options)
        dataRequest.clientCertificate = clientCertificate(of: context.dataLoader)
        if let modifier = context.requestModifier {
            dataRequest = try await modifier.resolvedRequest(for: dataRequest)
            try Task.checkCancellation()
        }
        return ImageLoadRequest(
            url: url, options: options, context: context,
            decodingOptions: decodingOptions(options: options, thumbnail: context.thumbnail),
            dataRequest: dataRequest, cache: context.cache ?? configuration.cache, keys: context.requestModifier == nil ? known : nil
        )
    }

    /// The client certificate `dataLoader` (the context's, or nil for the
    /// configuration's) presents by default: part of the identity of every
    /// request it loads, so two loaders with two certificates sharing one
    /// cache never share an entry. A request modifier may still set its own.
    func clientCertificate(of dataLoader: (any DataLoading)?) -> DataRequest.TLSClientCertificate? {
        guard let dataLoader else { return defaultClientCertificate }
        return dataLoader.clientCertificate
    }

    /// The options that change the data request's ``DataRequest/Variant``
    /// (``dataRequest(_:options:)`` maps them to request fields); a call with
    /// none of them and no request modifier sends a plain request.
    static let variantOptions: ImageOptions = [.handleCookies, .allowInvalidSSLCertificates]

    /// The data request of a load before any request modifier: the one
    /// place that spells it, for the request and for the fast path.
    static func dataRequest(_ url: URL, options: ImageOptions) -> DataRequest {
        let priority: DataRequest.Priority =
            options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
        return DataRequest(
            url: url,
            priority: priority,
            handleCookies: options.contains(.handleCookies),
            allowInvalidSSLCertificates: options.contains(.allowInvalidSSLCertificates)
        )
    }

    /// The URL checks every load makes first: scheme allow-list and a host.
    private func validate(_ url: URL, string: String? = nil) throws(ImageError) {
        if !isPlainWebURL(string ?? url.absoluteString) {
            // Foundation's parse allocates (percent-decoding host and
            // scheme), so it runs only when the cheap check above cannot decide.
            guard let scheme = url.scheme else { throw .unsupportedScheme("") }
            guard allowedSchemes.contains(scheme.lowercased()) else { throw .unsupportedScheme(scheme) }
            if scheme.lowercased() != "file" && (url.host ?? "").isEmpty {
                throw .invalidURL(url.absoluteString)
            }
        }
    }

    /// The failed-URL list's verdict on one request identity.
    private func checkNotBlocked(_ origin: ImageRequestKeys.Origin, url: URL, options: ImageOptions) throws(ImageError) {
        if configuration.blocksFailedURLs && !options.contains(.retryFailed) && failedURLs.contains(origin) {
            throw .blockedURL(url)
        }
    }

    /// The configuration's decode limits and nothing else: how stored
    /// (already transformed) data is decoded, and the base of every load's
    /// options — the one place the limits are copied into decode options.
    var decodeLimits: ImageDecodingOptions { diskStage.decodeLimits }

    /// The decode options a load's options and context ask for.
    private func decodingOptions(options: ImageOptions, thumbnail: ThumbnailOptions?) -> ImageDecodingOptions {
        var decoding = decodeLimits
        thumbnail?.apply(to: &decoding)
        decoding.scaleDownLargeImages = options.contains(.scaleDownLargeImages)
        decoding.usesEmbeddedThumbnails = configuration.usesEmbeddedThumbnails
        decoding.applyOrientation = configuration.appliesOrientation
        decoding.decodesFirstFrameOnly = options.contains(.decodeFirstFrameOnly)
        decoding.preloadsAllFrames = options.contains(.preloadAllFrames)
        return decoding
    }

    /// Options under which a call's final image is not simply looked up in
    /// memory first (refresh, loader only, data only, memory data): such
    /// calls skip the memory fast path and the early memory check.
    static let memoryBypassingOptions: ImageOptions = [.refreshCached, .fromLoaderOnly, .avoidDecodeImage, .queryMemoryData]

    /// Options that change how an image decodes, so its key.
    static let decodingKeyOptions: ImageOptions = [.scaleDownLargeImages, .decodeFirstFrameOnly, .preloadAllFrames]

    /// What the fast path of `image(_:)` found.
    enum FastPath {
        /// The final image's memory entry.
        case hit(MemoryCache.Entry)
        /// The result is being made by work the call can join as it is;
        /// `keys` are the call's, should the work end before it joins.
        case inFlight(ImageRequestKeys.TaskKey, keys: ImageRequestKeys)
        /// Neither: build the request and take the full path, which skips
        /// the memory lookup when `memoryChecked`, and resolves no key
        /// again when the fast path resolved them (`keys`).
        case none(memoryChecked: Bool, keys: ImageRequestKeys?)
    }

    /// The fast path of `image(_:)`: the final image straight from memory,
    /// or the key of the work in flight for it, resolving only what that
    /// needs — no merged context, no request object, no channel — but with
    /// the same key resolver (``ImageRequestKeys``) as the full path.
    ///
    /// A call with a request modifier takes the full path: the modifier's
    /// header fields are part of the identity, so it must run first.
    ///
    /// Synchronous: the memory cache's table is read under its lock, so a
    /// hit makes no executor hop at all.
    @inline(__always)
    func fastPath(_ url: URL, options: ImageOptions, context: ImageContext) throws(ImageError) -> FastPath {
        guard !hasOptionsProcessor, options.isDisjoint(with: Self.memoryBypassingOptions) else { return .none(memoryChecked: false, keys: nil) }
        let defaults = defaultContextIsEmpty ? nil : configuration.defaultContext
        guard (context.requestModifier ?? defaults?.requestModifier) == nil else { return .none(memoryChecked: false, keys: nil) }
        // A loader's client certificate is part of the identity: the full path stamps it.
        guard clientCertificate(of: context.dataLoader ?? defaults?.dataLoader) == nil else { return .none(memoryChecked: false, keys: nil) }
        guard (context.queryCacheTypeIfSet ?? defaults?.queryCacheTypeIfSet ?? .all).includesMemory else {
            return .none(memoryChecked: false, keys: nil)
        }
        let string = url.absoluteString
        try validate(url, string: string)
        // Without a modifier the request's variant follows from the options
        // alone: plain unless they ask for cookies or relaxed TLS, so the
        // common call builds no request to learn it.
        let dataRequest = options.isDisjoint(with: Self.variantOptions) ? nil : Self.dataRequest(url, options: options).key
        let keys = requestKeys(url: url, string: string, variant: dataRequest?.variant ?? .plain, options: options, context: context, defaults: defaults)
        try checkNotBlocked(keys.origin, url: url, options: options)
        // Callers joining a load in flight skip the memory actor: the
        // result is not there yet, and a thousand such hops would queue.
        if tasks.isInFlight(resultKey: keys.resultKey) {
            let request = dataRequest ?? Self.dataRequest(url, options: options).key
            return .inFlight(keys.taskKey(request: request, decodes: true, cacheOnly: options.contains(.fromCacheOnly)), keys: keys)
        }
        let cache = context.cache ?? defaults?.cache ?? configuration.cache
        // A synchronous read of the cache's lock-guarded table: no actor hop.
        guard let entry = cache.memory.entry(forKey: keys.resultKey) else { return .none(memoryChecked: true, keys: keys) }
        if let record = entry.http, followsHTTPCaching, !record.allowsReuse(requestFor: { Self.dataRequest(url, options: options) }) {
            // Stale, or stored for other Vary values: the shared work looks
            // again and revalidates (or serves it stale while it revalidates).
            return .none(memoryChecked: true, keys: keys)
        }
        telemetry.countLoad(.memory)
        // The loggers are used where they are, not copied out (`logger(for:)`
        // would retain and release a handler and a label on every hit).
        if let logger = context.logger {
            logger.debug("memory hit", metadata: ["awi.id": .string(String(SHA256.hexDigest(keys.resultKey).prefix(12)))])
        } else if telemetry.logsDebug {
            telemetry.logger.debug("memory hit", metadata: ["awi.id": .string(String(SHA256.hexDigest(keys.resultKey).prefix(12)))])
        }
        return .hit(entry)
    }

    /// The keys of a call, as ``makeRequest(_:options:context:)`` would
    /// resolve them, without merging the context. A call that sets no key
    /// filter, decode size or transformer (the common case) builds no string.
    private func requestKeys(
        url: URL, string: String, variant: DataRequest.Variant, options: ImageOptions, context: ImageContext, defaults: ImageContext?
    ) -> ImageRequestKeys {
        // A call with no context over no defaults (the common hit): nothing
        // to read, so no optional existential is copied out of a context.
        if context.isEmpty && defaults == nil && options.isDisjoint(with: Self.decodingKeyOptions) {
            return ImageRequestKeys(url: url, urlString: string, filter: nil, variant: variant, decodingSuffix: plainKeySuffix, transformer: nil)
        }
        let thumbnail = context.thumbnail ?? defaults?.thumbnail
        let decodingSuffix: String
        if thumbnail == nil && options.isDisjoint(with: Self.decodingKeyOptions) {
            decodingSuffix = plainKeySuffix
        } else {
            decodingSuffix = decodingOptions(options: options, thumbnail: thumbnail).cacheKeySuffix
        }
        return ImageRequestKeys(
            url: url, urlString: string, filter: context.cacheKeyFilter ?? defaults?.cacheKeyFilter, variant: variant,
            decodingSuffix: decodingSuffix,
            transformer: ImageRequest.effectiveTransformer(context.transformer ?? defaults?.transformer, thumbnail: thumbnail),
            transformsAnimation: options.contains(.transformAnimatedImage)
        )
    }

    /// Whether `string` (a URL's absolute string) is plainly an allowed
    /// `http://host…` or `https://host…` URL, judged without allocating: the fast path of
    /// validation on every load. `false` means "check properly", not "invalid".
    private func isPlainWebURL(_ string: String) -> Bool {
        // Bytes, not `hasPrefix`: this runs on every memory hit, and the
        // byte comparison costs a fraction of a Unicode-aware prefix test.
        let verdict = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            let https = bytes.count > 8 && bytes[4] == UInt8(ascii: "s")
            let prefixLength = https ? 8 : 7
            guard bytes.count > prefixLength, https ? httpsAllowed : httpAllowed else { return false }
            // "http" in either case, then "://" (after the "s" of https).
            guard bytes[0] | 0x20 == UInt8(ascii: "h"), bytes[1] | 0x20 == UInt8(ascii: "t"),
                  bytes[2] | 0x20 == UInt8(ascii: "t"), bytes[3] | 0x20 == UInt8(ascii: "p"),
                  bytes[prefixLength - 3] == UInt8(ascii: ":"), bytes[prefixLength - 2] == UInt8(ascii: "/"),
                  bytes[prefixLength - 1] == UInt8(ascii: "/") else { return false }
            // A host must follow: not empty, not a path, not a user-info-only authority.
            let first = bytes[prefixLength]
            return first != UInt8(ascii: "/") && first != UInt8(ascii: "@") && first != UInt8(ascii: "?") && first != UInt8(ascii: "#")
        }
        return verdict ?? false
    }

    /// Starts one load feeding `channel`: the memory fast path in the
    /// caller's task, then the shared work through ``ImageTaskCoalescer``.
    /// Never throws: failures end the channel.
    func start(_ url: URL, options: ImageOptions, context: ImageContext, channel: ImageEventChannel, wantsPreviews: Bool) async {
        do {
            // A load cancelled before it starts costs a check, no task and no transfer.
            try Task.checkCancellation()
            if hasShutDown { throw ImageError.shutDown }
            let request = try await makeRequest(url, options: options, context: context)
            await start(request, channel: channel, wantsPreviews: wantsPreviews, memoryChecked: false)
        } catch {
            channel.finish(throwing: error)
        }
    }

    /// Starts a load; `memoryChecked` skips the memory lookup the caller
    /// has just made (with the same keys: only calls without a request
    /// modifier get that far).
    func start(_ request: ImageLoadRequest, channel: ImageEventChannel, wantsPreviews: Bool, wantsProgress: Bool = true, memoryChecked: Bool) async {
        do {
            try checkNotBlocked(request.keys.origin, url: request.url, options: request.options)
            let refresh = request.options.contains(.refreshCached)
            let logger = logger(for: request.context)
            logger.debug("load", metadata: ["awi.id": request.logID, "awi.options": .stringConvertible(request.options.rawValue)])
            if !request.options.contains(.fromLoaderOnly) {
                let cached = memoryChecked && !refresh ? nil : try await cachedResponse(for: request, includingDisk: refresh)
                if let cached {
                    telemetry.countLoad(cached.cacheType == .memory ? .memory : .disk)
                    logger.debug("cache hit", metadata: ["awi.id": request.logID, "awi.tier": .stringConvertible(cached.cacheType)])
                    channel.send(.finished(cached))
                    // An immutable entry is not revalidated while fresh (RFC 8246), even on request.
                    guard refresh, !request.options.contains(.fromCacheOnly), await !isFreshAndImmutable(request) else {
                        channel.finish()
                        return
                    }
                    subscribe(request, revalidating: true, channel: channel, wantsPreviews: wantsPreviews, wantsProgress: wantsProgress)
                    return
                }
                if refresh && request.options.contains(.fromCacheOnly) { throw ImageError.cacheMiss }
            } else if request.options.contains(.fromCacheOnly) {
                throw ImageError.cacheMiss
            }
            try Task.checkCancellation()
            subscribe(request, revalidating: refresh, channel: channel, wantsPreviews: wantsPreviews && request.wantsPixels, wantsProgress: wantsProgress)
        } catch {
            // Failures before any shared work (the shared work counts its own).
            telemetry.countFailure(error)
            channel.finish(throwing: error)
        }
    }

    private func subscribe(_ request: ImageLoadRequest, revalidating: Bool, channel: ImageEventChannel, wantsPreviews: Bool, wantsProgress: Bool) {
        let key = revalidating ? request.taskKey.revalidating : request.taskKey
        let joined = tasks.subscribe(
            key, channel: channel, wantsPreviews: wantsPreviews, wantsProgress: wantsProgress,
            workPriority: Self.workPriority(request.options)
        ) { [self] handle in
            await run(request, work: revalidating ? .revalidation(known: nil) : .load, handle: handle)
        }
        if joined {
            telemetry.countJoin()
            logger(for: request.context).debug("joined load in flight", metadata: ["awi.id": request.logID])
        }
    }

    /// The priority of the shared work a load starts. It serves every caller
    /// that joins it, so it runs at least at `.high`: at the caller's own
    /// priority it would queue behind the very callers it serves (a burst of
    /// a thousand identical loads is enqueued before it), and each of them
    /// would wait for the setup of all the others. `.lowPriority` loads
    /// (prefetches) keep their caller's priority.
    private static func workPriority(_ options: ImageOptions) -> TaskPriority? {
        guard !options.contains(.lowPriority) else { return nil }
        let current = Task.currentPriority
        return current >= .high ? current : .high
    }

    /// The memory fast path (and, for `.refreshCached`, the disk): the
    /// final image under its result key.
    private func cachedResponse(for request: ImageLoadRequest, includingDisk: Bool) async throws -> LoadResult? {
        // `.refreshCached` (the only caller with the disk) revalidates what
        // it serves, so it takes stale entries too; other loads take only
        // fresh ones and leave stale ones to the shared work, which revalidates.
        if case .hit(let response, _) = await memoryLookup(for: request, acceptingStale: includingDisk) { return response }
        guard includingDisk else { return nil }
        // Only the disk is a stage with a span: a memory hit is a table
        // read, and its load span has no children.
        return try await telemetry.withChildSpan("image.cache_lookup") {
            try await storedResponse(for: request)
        }
    }
}
