import Foundation

extension ImageLoader {
    /// The shared work behind one task key: find or fetch the data, decode,
    /// transform, store, and tell every subscriber. Runs in its own task,
    /// cancelled when its last subscriber leaves.
    func run(_ request: ImageLoadRequest, revalidating: Bool, handle: ImageTaskCoalescer.Handle) async {
        do {
            let response = try await produce(request, revalidating: revalidating, handle: handle)
            if response != nil { failedURLs.remove(request.url) }
            handle.finish(.success(response))
        } catch {
            if configuration.blocksFailedURLs, let error = error as? ImageError, error.isPermanent {
                failedURLs.insert(request.url)
            }
            handle.finish(.failure(error))
        }
    }

    /// The response for `request`, or `nil` when a revalidation found the
    /// cached image still current.
    private func produce(_ request: ImageLoadRequest, revalidating: Bool, handle: ImageTaskCoalescer.Handle) async throws -> ImageResponse? {
        if !revalidating && !request.options.contains(.fromLoaderOnly) {
            // A caller can miss memory just before an earlier piece of work
            // for the same result stores it and leaves the table; look once
            // more here, so that race costs one lookup instead of a download.
            if let response = try await memoryResponse(for: request) { return response }
            if let response = try await diskResponse(for: request) { return response }
            if request.options.contains(.fromCacheOnly) { throw ImageError.cacheMiss }
        }
        try Task.checkCancellation()
        var dataRequest = request.dataRequest
        var cachedData: Data?
        if revalidating, request.queryCacheType.includesDisk, let disk = request.cache.disk,
           let entry = try? await disk.dataWithExtendedData(forKey: request.cacheKey) {
            cachedData = entry.data
            entry.extendedData.flatMap(CacheValidators.init(encoded:))?.apply(to: &dataRequest)
        }
        let (head, data) = try await download(request, dataRequest, handle: handle)
        if head?.statusCode == 304 {
            guard cachedData != nil else { throw ImageError.httpStatus(304) }
            return nil
        }
        if let cachedData, cachedData == data { return nil }
        return try await process(request, data: data, head: head, cacheType: .none)
    }

    /// Looks for the result in the caches below the memory fast path: the
    /// decoded original in memory (then only the transform runs), the
    /// transformed data on disk, the original data on disk. An entry that
    /// cannot be decoded is removed and counts as a miss.
    func diskResponse(for request: ImageLoadRequest) async throws -> ImageResponse? {
        let cache = request.cache
        let query = request.queryCacheType
        if request.wantsPixels, let transformer = request.transformer, query.includesMemory,
           let original = await cache.memory.image(forKey: request.originalImageKey) {
            let image = try await transform(original, with: transformer, limiter: cache.decodeLimiter)
            if request.storeCacheType.includesMemory { await cache.memory.setImage(image, forKey: request.resultKey) }
            return ImageResponse(image: image, data: nil, cacheType: .memory, url: request.url)
        }
        guard query.includesDisk, let disk = cache.disk else { return nil }
        if request.wantsPixels, request.transformer != nil, let data = try? await disk.data(forKey: request.resultKey) {
            // Already transformed: decode as stored, with the limits but no resizing.
            let options = ImageDecodingOptions(maxPixelCount: configuration.maxPixelCount)
            let coders = configuration.coders
            do {
                let image = try await cache.decodeLimiter.withPermit { try coders.decode(data, options: options) }
                if request.storeCacheType.includesMemory { await cache.memory.setImage(image, forKey: request.resultKey) }
                return ImageResponse(image: image, data: data, cacheType: .disk, url: request.url)
            } catch let error as ImageError {
                // Whatever went wrong, the original below can still serve.
                if error.condemnsCachedData { try? await disk.removeData(forKey: request.resultKey) }
            }
        }
        try Task.checkCancellation()
        guard let data = try? await disk.data(forKey: request.cacheKey) else { return nil }
        guard request.wantsPixels else { return ImageResponse(image: nil, data: data, cacheType: .disk, url: request.url) }
        do {
            return try await process(request, data: data, head: nil, cacheType: .disk)
        } catch let error as ImageError where error.condemnsCachedData {
            try? await disk.removeData(forKey: request.cacheKey)
            return nil
        }
    }

    /// Downloads through the coalescer, broadcasting progress and (when a
    /// subscriber wants them) previews.
    private func download(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, handle: ImageTaskCoalescer.Handle
    ) async throws -> (DataResponseHead?, Data) {
        let coalescer = downloadCoalescer(for: request.context.dataLoader)
        let modifiers = DownloadModifiers(responseModifier: request.context.responseModifier, decryptor: request.context.decryptor)
        var head: DataResponseHead?
        var body: Data?
        var throttle: PreviewThrottle?
        var previewsUnavailable = !request.wantsPixels
        do {
            var dataRequest = dataRequest
            dataRequest.retryPolicy = request.context.retryPolicy
            for try await event in coalescer.download(dataRequest, modifiers: modifiers) {
                switch event {
                case .head(let received):
                    head = received
                case .progress(let received, let expected):
                    handle.progress(received: received, expected: expected)
                case .chunk(_, let accumulated):
                    guard !previewsUnavailable, handle.wantsPreviews else { break }
                    if throttle == nil {
                        // Enough bytes to recognise the format by its magic numbers.
                        guard accumulated.count >= 64 else { break }
                        guard let decoder = configuration.coders.decoder(for: accumulated)?
                            .makeProgressiveDecoder(options: request.decodingOptions) else {
                            previewsUnavailable = true
                            break
                        }
                        throttle = PreviewThrottle(
                            decoder: decoder, interval: configuration.previewInterval,
                            limiter: request.cache.decodeLimiter, transformer: request.transformer,
                            deliver: { handle.preview($0) }
                        )
                    }
                    throttle?.offer(accumulated)
                case .completed(let data):
                    body = data
                }
            }
        } catch {
            await throttle?.stop()
            throw error
        }
        await throttle?.stop()
        // The download sequence ends without completing only when cancelled.
        guard let body else { throw CancellationError() }
        return (head, body)
    }

    /// Decodes, transforms and stores `data`; `cacheType` says where it came
    /// from (`.none` for the network, which is the only case that writes the
    /// original data to disk).
    private func process(_ request: ImageLoadRequest, data: Data, head: DataResponseHead?, cacheType: ImageCacheType) async throws -> ImageResponse {
        let cache = request.cache
        let limiter = cache.decodeLimiter
        let url = request.url
        let original: Image?
        var image: Image?
        if request.wantsPixels {
            let coders = configuration.coders
            let options = request.decodingOptions
            let decoded = try await limiter.withPermit { try coders.decode(data, options: options) }
            original = decoded
            image = decoded
            if let transformer = request.transformer {
                try Task.checkCancellation()
                image = try await transform(decoded, with: transformer, limiter: limiter)
            }
        } else {
            original = nil
        }

        if let original, request.transformer != nil, request.originalStoreCacheType.includesMemory {
            await cache.memory.setImage(original, forKey: request.originalImageKey)
        }
        if let image, request.storeCacheType.includesMemory {
            await cache.memory.setImage(image, forKey: request.resultKey)
        }

        var writes: [@Sendable () async throws -> Void] = []
        if let disk = cache.disk {
            if cacheType == .none, request.originalStoreCacheType.includesDisk {
                let stored = request.context.cacheSerializer.map { $0.cacheData(for: original, originalData: data, url: url) } ?? data
                if let stored {
                    let validators = head.flatMap(CacheValidators.init(head:))?.encoded
                    let key = request.cacheKey
                    writes.append { try await disk.setData(stored, forKey: key, extendedData: validators) }
                }
            }
            if let image, let original, request.transformer != nil, request.storeCacheType.includesDisk {
                let key = request.resultKey
                let coders = configuration.coders
                let quality = configuration.transformedImageQuality
                // JPEG stays JPEG when there is no alpha to lose; everything else is PNG.
                let format: ImageFormat = original.format == .jpeg && !image.pixelFormat.hasAlpha ? .jpeg : .png
                writes.append {
                    let encoded = try await limiter.withPermit { try coders.encode(image, as: format, quality: quality) }
                    try await disk.setData(encoded, forKey: key, extendedData: nil)
                }
            }
        }
        if !writes.isEmpty {
            if request.options.contains(.waitStoreCache) {
                // Disk failures do not fail the load: the image is good, only its copy is missing.
                for write in writes { try? await write() }
            } else {
                // Not tied to the caller: a store that started should finish even if nobody waits.
                Task { for write in writes { try? await write() } }
            }
        }
        return ImageResponse(image: image, data: data, cacheType: cacheType, url: url)
    }

    /// Runs `transformer` on the bounded pool, reporting foreign errors as
    /// ``ImageError/transformFailed(key:reason:)``; cancellation (built-in
    /// transformers check for it) stays `CancellationError`.
    private func transform(_ image: Image, with transformer: any ImageTransformer, limiter: ConcurrencyLimiter) async throws -> Image {
        try await limiter.withPermit {
            do {
                return try transformer.transform(image)
            } catch let error as ImageError {
                throw error
            } catch let error as CancellationError {
                throw error
            } catch {
                throw ImageError.transformFailed(key: transformer.key, reason: String(describing: error))
            }
        }
    }
}
