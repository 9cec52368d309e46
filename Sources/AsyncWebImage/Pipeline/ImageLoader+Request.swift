import Foundation

extension ImageLoader {
    /// Resolves a call into an ``ImageLoadRequest``: the precedence chain,
    /// URL checks, the failed-URL list and the cache keys. Cheap and
    /// synchronous; runs no user code but the options processor and the
    /// cache key filter.
    ///
    /// - Throws: ``ImageError/unsupportedScheme(_:)``, ``ImageError/invalidURL(_:)``,
    ///   ``ImageError/blockedURL(_:)``.
    func makeRequest(_ url: URL, options: ImageOptions, context: ImageContext) throws(ImageError) -> ImageLoadRequest {
        var options = options
        // Merging builds a new context; skip it in the common case of one side empty.
        var context = defaultContextIsEmpty ? context : context.merged(over: configuration.defaultContext)
        if let processor = configuration.optionsProcessor {
            (options, context) = processor.process(url, options: options, context: context)
        }
        try validate(url, options: options)
        let decoding = decodingOptions(options: options, thumbnail: context.thumbnailPixelSize, preserveAspectRatio: context.preserveAspectRatio)
        let cacheKey = context.cacheKeyFilter?.key(for: url) ?? url.absoluteString
        let originalImageKey = cacheKey + decoding.cacheKeySuffix
        let resultKey = Self.resultKey(originalImageKey: originalImageKey, transformer: context.transformer)
        return ImageLoadRequest(
            url: url, options: options, context: context, cacheKey: cacheKey,
            originalImageKey: originalImageKey, resultKey: resultKey, decodingOptions: decoding,
            dataRequest: Self.dataRequest(url, options: options), cache: context.cache ?? configuration.cache
        )
    }

    /// The data request of a load before any request modifier: the one
    /// place that spells it, for the request and for the join fast path.
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

    /// The URL checks every load makes first: scheme allow-list, a host,
    /// and the failed-URL list.
    private func validate(_ url: URL, string: String? = nil, options: ImageOptions) throws(ImageError) {
        if !isPlainWebURL(string ?? url.absoluteString) {
            // Foundation's parse allocates (percent-decoding host and
            // scheme), so it runs only when the cheap check above cannot decide.
            guard let scheme = url.scheme else { throw .unsupportedScheme("") }
            let allowed = configuration.allowedSchemes.contains(scheme) || configuration.allowedSchemes.contains(scheme.lowercased())
            guard allowed else { throw .unsupportedScheme(scheme) }
            if scheme.lowercased() != "file" && (url.host ?? "").isEmpty {
                throw .invalidURL(url.absoluteString)
            }
        }
        if configuration.blocksFailedURLs && !options.contains(.retryFailed) && failedURLs.contains(url) {
            throw .blockedURL(url)
        }
    }

    /// The decode options a load's options and context ask for.
    private func decodingOptions(options: ImageOptions, thumbnail: PixelSize?, preserveAspectRatio: Bool?) -> ImageDecodingOptions {
        ImageDecodingOptions(
            thumbnailPixelSize: thumbnail,
            preserveAspectRatio: preserveAspectRatio ?? true,
            scaleDownLargeImages: options.contains(.scaleDownLargeImages),
            scaleDownLimitBytes: configuration.scaleDownLimitBytes,
            maxPixelCount: configuration.maxPixelCount,
            applyOrientation: configuration.appliesOrientation,
            maxDecodeMemoryBytes: configuration.maxDecodeMemoryBytes
        )
    }

    /// Options under which a call's final image is not simply looked up in
    /// memory first (refresh, loader only, data only, memory data): such
    /// calls skip the memory fast path and the early memory check.
    static let memoryBypassingOptions: ImageOptions = [.refreshCached, .fromLoaderOnly, .avoidDecodeImage, .queryMemoryData]

    /// What the fast path of `image(_:)` found.
    enum FastPath {
        /// The final image, from memory.
        case hit(ImageResponse)
        /// The result is being made by work the call can join as it is.
        case inFlight(ImageLoadRequest.TaskKey)
        /// Neither: build the request and take the full path.
        case none
    }

    /// The fast path of `image(_:)`: the final image straight from memory,
    /// or the key of the work in flight for it, resolving only what that
    /// needs — no merged context, no request, no channel.
    @inline(__always)
    func fastPath(_ url: URL, options: ImageOptions, context: ImageContext) async throws(ImageError) -> FastPath {
        guard !hasOptionsProcessor, options.isDisjoint(with: Self.memoryBypassingOptions) else { return .none }
        let defaults = defaultContextIsEmpty ? nil : configuration.defaultContext
        guard (context.queryCacheType ?? defaults?.queryCacheType ?? .all).includesMemory else { return .none }
        let string = url.absoluteString
        try validate(url, string: string, options: options)
        let key = resultKey(url: url, string: string, options: options, context: context, defaults: defaults)
        let cache = context.cache ?? defaults?.cache ?? configuration.cache
        let modifiesRequests = (context.requestModifier ?? defaults?.requestModifier) != nil
        // Callers joining a load in flight skip the memory actor: the
        // result is not there yet, and a thousand such hops would queue.
        if tasks.isInFlight(resultKey: key) {
            // A request modifier may change the request (and so the work's
            // key) only once it runs: such calls take the full path.
            guard !modifiesRequests else { return .none }
            let request = Self.dataRequest(url, options: options).key
            return .inFlight(ImageLoadRequest.TaskKey(
                resultKey: key, request: request, decodes: true,
                cacheOnly: options.contains(.fromCacheOnly), revalidates: false
            ))
        }
        guard let image = await cache.memory.image(forKey: key) else { return .none }
        return .hit(ImageResponse(image: image, data: nil, cacheType: .memory, url: url))
    }

    /// The result key of a call, as ``makeRequest(_:options:context:)``
    /// would compute it, without building the request. A call that sets no
    /// key filter, decode size or transformer (the common case) gets the
    /// URL's string itself, with no string built.
    private func resultKey(url: URL, string: String, options: ImageOptions, context: ImageContext, defaults: ImageContext?) -> String {
        let filter = context.cacheKeyFilter ?? defaults?.cacheKeyFilter
        let cacheKey = filter?.key(for: url) ?? string
        let thumbnail = context.thumbnailPixelSize ?? defaults?.thumbnailPixelSize
        let originalImageKey: String
        if thumbnail == nil && !options.contains(.scaleDownLargeImages) {
            originalImageKey = plainKeySuffix.isEmpty ? cacheKey : cacheKey + plainKeySuffix
        } else {
            let decoding = decodingOptions(
                options: options, thumbnail: thumbnail,
                preserveAspectRatio: context.preserveAspectRatio ?? defaults?.preserveAspectRatio
            )
            originalImageKey = cacheKey + decoding.cacheKeySuffix
        }
        return Self.resultKey(originalImageKey: originalImageKey, transformer: context.transformer ?? defaults?.transformer)
    }

    /// The memory key of a final image: the decoded original's key plus the
    /// transformer's key. The one place that spells it, for the request and
    /// for the memory fast path.
    static func resultKey(originalImageKey: String, transformer: (any ImageTransformer)?) -> String {
        transformer.map { originalImageKey + "#transform=" + $0.key } ?? originalImageKey
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
            let request = try makeRequest(url, options: options, context: context)
            await start(request, channel: channel, wantsPreviews: wantsPreviews, memoryChecked: false)
        } catch {
            channel.finish(throwing: error)
        }
    }

    /// Starts a resolved load; `memoryChecked` skips the memory lookup the
    /// caller has just made.
    func start(_ request: ImageLoadRequest, channel: ImageEventChannel, wantsPreviews: Bool, wantsProgress: Bool = true, memoryChecked: Bool) async {
        do {
            var request = request
            let refresh = request.options.contains(.refreshCached)
            if !request.options.contains(.fromLoaderOnly) {
                let cached = memoryChecked && !refresh ? nil : try await cachedResponse(for: request, includingDisk: refresh)
                if let cached {
                    channel.send(.finished(cached))
                    guard refresh, !request.options.contains(.fromCacheOnly) else {
                        channel.finish()
                        return
                    }
                    request = try await modifyingRequest(request)
                    subscribe(request, revalidating: true, channel: channel, wantsPreviews: wantsPreviews, wantsProgress: wantsProgress)
                    return
                }
                if refresh && request.options.contains(.fromCacheOnly) { throw ImageError.cacheMiss }
            } else if request.options.contains(.fromCacheOnly) {
                throw ImageError.cacheMiss
            }
            request = try await modifyingRequest(request)
            try Task.checkCancellation()
            subscribe(request, revalidating: refresh, channel: channel, wantsPreviews: wantsPreviews && request.wantsPixels, wantsProgress: wantsProgress)
        } catch {
            channel.finish(throwing: error)
        }
    }

    private func subscribe(_ request: ImageLoadRequest, revalidating: Bool, channel: ImageEventChannel, wantsPreviews: Bool, wantsProgress: Bool) {
        var key = request.taskKey
        if revalidating {
            key = ImageLoadRequest.TaskKey(
                resultKey: key.resultKey, request: key.request, decodes: key.decodes, cacheOnly: key.cacheOnly, revalidates: true
            )
        }
        tasks.subscribe(
            key, channel: channel, wantsPreviews: wantsPreviews, wantsProgress: wantsProgress,
            workPriority: Self.workPriority(request.options)
        ) { [self] handle in
            await run(request, revalidating: revalidating, handle: handle)
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

    /// Applies the request modifier (context over configuration), which may
    /// change the URL and headers or refuse the request.
    private func modifyingRequest(_ request: ImageLoadRequest) async throws -> ImageLoadRequest {
        guard let modifier = request.context.requestModifier else { return request }
        guard let modified = await modifier.modifiedRequest(for: request.dataRequest) else {
            throw ImageError.requestRejected(request.url.absoluteString)
        }
        try Task.checkCancellation()
        return request.with(dataRequest: modified)
    }

    /// The memory fast path (and, for `.refreshCached`, the disk): the
    /// final image under its result key.
    private func cachedResponse(for request: ImageLoadRequest, includingDisk: Bool) async throws -> ImageResponse? {
        if let response = try await memoryResponse(for: request) { return response }
        if includingDisk {
            return try await diskResponse(for: request)
        }
        return nil
    }

    /// The final image from memory under its result key, if there.
    func memoryResponse(for request: ImageLoadRequest) async throws -> ImageResponse? {
        guard request.wantsPixels, request.queryCacheType.includesMemory,
              let image = await request.cache.memory.image(forKey: request.resultKey) else { return nil }
        var data: Data?
        if request.options.contains(.queryMemoryData), let disk = request.cache.disk {
            data = try? await disk.data(forKey: request.transformer == nil ? request.cacheKey : request.resultKey)
        }
        return ImageResponse(image: image, data: data, cacheType: .memory, url: request.url)
    }
}
