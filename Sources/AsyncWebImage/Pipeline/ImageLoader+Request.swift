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
        let priority: DataRequest.Priority =
            options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
        let dataRequest = DataRequest(
            url: url,
            priority: priority,
            handleCookies: options.contains(.handleCookies),
            allowInvalidSSLCertificates: options.contains(.allowInvalidSSLCertificates)
        )
        return ImageLoadRequest(
            url: url, options: options, context: context, cacheKey: cacheKey,
            originalImageKey: originalImageKey, resultKey: resultKey, decodingOptions: decoding,
            dataRequest: dataRequest, cache: context.cache ?? configuration.cache
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
            applyOrientation: configuration.appliesOrientation
        )
    }

    /// The memory fast path of `image(_:)`: the final image straight from
    /// memory, resolving only what the lookup needs — no merged context, no
    /// request. `nil` on a miss, or when the call's options need the full path.
    func memoryHit(_ url: URL, options: ImageOptions, context: ImageContext) async throws(ImageError) -> ImageResponse? {
        let slowOptions: ImageOptions = [.refreshCached, .fromLoaderOnly, .avoidDecodeImage, .queryMemoryData]
        guard configuration.optionsProcessor == nil, options.isDisjoint(with: slowOptions) else { return nil }
        let defaults = configuration.defaultContext
        guard (context.queryCacheType ?? defaults.queryCacheType ?? .all).includesMemory else { return nil }
        let string = url.absoluteString
        try validate(url, string: string, options: options)
        let filter = context.cacheKeyFilter ?? defaults.cacheKeyFilter
        let cacheKey = filter?.key(for: url) ?? string
        let decoding = decodingOptions(
            options: options,
            thumbnail: context.thumbnailPixelSize ?? defaults.thumbnailPixelSize,
            preserveAspectRatio: context.preserveAspectRatio ?? defaults.preserveAspectRatio
        )
        let key = Self.resultKey(originalImageKey: cacheKey + decoding.cacheKeySuffix, transformer: context.transformer ?? defaults.transformer)
        // Callers joining a load in flight skip the memory actor: the
        // result is not there yet, and a thousand such hops would queue.
        guard !tasks.isInFlight(resultKey: key) else { return nil }
        let cache = context.cache ?? defaults.cache ?? configuration.cache
        guard let image = await cache.memory.image(forKey: key) else { return nil }
        return ImageResponse(image: image, data: nil, cacheType: .memory, url: url)
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
        let prefixLength: Int
        if string.hasPrefix("https://") {
            guard httpsAllowed else { return false }
            prefixLength = 8
        } else if string.hasPrefix("http://") {
            guard httpAllowed else { return false }
            prefixLength = 7
        } else {
            return false
        }
        // A host must follow: not empty, not a path, not a user-info-only authority.
        let text = string.utf8
        guard text.count > prefixLength else { return false }
        let first = text[text.index(text.startIndex, offsetBy: prefixLength)]
        return first != UInt8(ascii: "/") && first != UInt8(ascii: "@") && first != UInt8(ascii: "?") && first != UInt8(ascii: "#")
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
            key = ImageLoadRequest.TaskKey(resultKey: key.resultKey, request: key.request, decodes: key.decodes, revalidates: true)
        }
        tasks.subscribe(key, channel: channel, wantsPreviews: wantsPreviews, wantsProgress: wantsProgress) { [self] handle in
            await run(request, revalidating: revalidating, handle: handle)
        }
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
