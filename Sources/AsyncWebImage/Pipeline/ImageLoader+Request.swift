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
        var context = context.merged(over: configuration.defaultContext)
        if let processor = configuration.optionsProcessor {
            (options, context) = processor.process(url, options: options, context: context)
        }
        guard let scheme = url.scheme?.lowercased(), configuration.allowedSchemes.contains(scheme) else {
            throw .unsupportedScheme(url.scheme ?? "")
        }
        if scheme != "file" && (url.host ?? "").isEmpty {
            throw .invalidURL(url.absoluteString)
        }
        if configuration.blocksFailedURLs && !options.contains(.retryFailed) && failedURLs.contains(url) {
            throw .blockedURL(url)
        }
        let decoding = ImageDecodingOptions(
            thumbnailPixelSize: context.thumbnailPixelSize,
            preserveAspectRatio: context.preserveAspectRatio ?? true,
            scaleDownLargeImages: options.contains(.scaleDownLargeImages),
            scaleDownLimitBytes: configuration.scaleDownLimitBytes,
            maxPixelCount: configuration.maxPixelCount,
            applyOrientation: configuration.appliesOrientation
        )
        let cacheKey = context.cacheKeyFilter?.key(for: url) ?? url.absoluteString
        let originalImageKey = cacheKey + decoding.cacheKeySuffix
        let resultKey = context.transformer.map { originalImageKey + "#transform=" + $0.key } ?? originalImageKey
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

    /// Starts one load feeding `channel`: the memory fast path in the
    /// caller's task, then the shared work through ``ImageTaskCoalescer``.
    /// Never throws: failures end the channel.
    func start(_ url: URL, options: ImageOptions, context: ImageContext, channel: ImageEventChannel, wantsPreviews: Bool) async {
        do {
            // A load cancelled before it starts costs a check, no task and no transfer.
            try Task.checkCancellation()
            var request = try makeRequest(url, options: options, context: context)
            let refresh = request.options.contains(.refreshCached)
            if !request.options.contains(.fromLoaderOnly) {
                if let cached = try await cachedResponse(for: request, includingDisk: refresh) {
                    channel.send(.finished(cached))
                    guard refresh, !request.options.contains(.fromCacheOnly) else {
                        channel.finish()
                        return
                    }
                    request = try await modifyingRequest(request)
                    subscribe(request, revalidating: true, channel: channel, wantsPreviews: wantsPreviews)
                    return
                }
                if refresh && request.options.contains(.fromCacheOnly) { throw ImageError.cacheMiss }
            } else if request.options.contains(.fromCacheOnly) {
                throw ImageError.cacheMiss
            }
            request = try await modifyingRequest(request)
            try Task.checkCancellation()
            subscribe(request, revalidating: refresh, channel: channel, wantsPreviews: wantsPreviews && request.wantsPixels)
        } catch {
            channel.finish(throwing: error)
        }
    }

    private func subscribe(_ request: ImageLoadRequest, revalidating: Bool, channel: ImageEventChannel, wantsPreviews: Bool) {
        var key = request.taskKey
        if revalidating {
            key = ImageLoadRequest.TaskKey(resultKey: key.resultKey, request: key.request, decodes: key.decodes, revalidates: true)
        }
        tasks.subscribe(key, channel: channel, wantsPreviews: wantsPreviews) { [self] handle in
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
