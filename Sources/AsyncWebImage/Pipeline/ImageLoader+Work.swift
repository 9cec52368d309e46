import Foundation

extension ImageLoader {
    /// The shared work behind one task key: find or fetch the data, decode,
    /// transform, store, and tell every subscriber. Runs in its own task,
    /// cancelled when its last subscriber leaves.
    func run(_ request: ImageLoadRequest, revalidating: Bool, handle: ImageTaskCoalescer.Handle) async {
        do {
            let response = try await produce(request, revalidating: revalidating, handle: handle)
            if response != nil { failedURLs.remove(request.keys.origin) }
            handle.finish(.success(response))
        } catch {
            if configuration.blocksFailedURLs, let error = error as? ImageError, error.isPermanent {
                failedURLs.insert(request.keys.origin)
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
        if revalidating, request.queryCacheType.includesDisk,
           let entry = try? await request.cache.readEntry(forKey: request.keys.dataKey, includeExtendedData: true) {
            cachedData = entry.data
            entry.extendedData.flatMap(CacheValidators.init(encoded:))?.apply(to: &dataRequest)
        }
        var lease: CacheLease?
        if !revalidating {
            switch try await fleetLease(for: request) {
            case .leader(let taken): lease = taken
            case .served(let response): return response
            case .alone: break
            }
        }
        let (head, data): (DataResponseHead?, Data)
        do {
            (head, data) = try await download(request, dataRequest, handle: handle)
        } catch {
            if let lease, let leasing = request.cache.sharedTier as? any CacheLeasing { await leasing.releaseLease(lease) }
            throw error
        }
        if head?.statusCode == 304 {
            guard cachedData != nil else { throw ImageError.httpStatus(304) }
            return nil
        }
        if let cachedData, cachedData == data { return nil }
        if let lease, let leasing = request.cache.sharedTier as? any CacheLeasing {
            // The fleet waits for these bytes: share them before anything
            // else (decode, transform), then let the waiters in.
            await request.cache.writeToShared(
                leasing, data, extendedData: head.flatMap(CacheValidators.init(head:))?.encoded, forKey: request.keys.dataKey
            )
            await leasing.releaseLease(lease)
        }
        return try await process(request, data: data, head: head, sharedWritten: lease != nil)
    }

    /// What a load found when it asked the fleet who fetches its data.
    private enum FleetLease {
        /// This server fetches; it releases the lease once the data is shared.
        case leader(CacheLease)
        /// Another server fetched it: the response, from the shared tier.
        case served(ImageResponse)
        /// No fleet to ask (no leasing tier, or it did not answer): fetch.
        case alone
    }

    /// Asks the shared tier (when it elects fetchers, ``CacheLeasing``) who
    /// downloads this load's data: this server, or another one whose result
    /// it then waits for. Only loads whose original data is stored as
    /// downloaded take part (a cache serializer stores other bytes).
    private func fleetLease(for request: ImageLoadRequest) async throws -> FleetLease {
        guard let leasing = request.cache.sharedTier as? any CacheLeasing,
              request.queryCacheType.includesDisk, request.originalStoreCacheType.includesDisk,
              request.context.cacheSerializer == nil else { return .alone }
        let key = request.keys.dataKey
        // Bounded: a lease can be taken over at most twice before this server fetches alone.
        for _ in 0..<2 {
            switch await leasing.acquireLease(forKey: key) {
            case .acquired(let lease):
                return .leader(lease)
            case .unavailable:
                return .alone
            case .heldByOther:
                switch try await leasing.waitForEntry(forKey: key) {
                case .entry:
                    // Read through the cache: the disk fill and the decode rules of a disk hit.
                    if let response = try await diskResponse(for: request) { return .served(response) }
                    return .alone
                case .leaseGone:
                    continue
                case .timedOut, .unavailable:
                    return .alone
                }
            }
        }
        return .alone
    }

    /// Looks for the result in the caches below the memory fast path: the
    /// decoded original in memory (then only the transform runs), the
    /// transformed data on disk, the original data on disk — read and
    /// decoded through ``ImageCache``, which removes an entry that cannot be
    /// decoded (a miss, then).
    func diskResponse(for request: ImageLoadRequest) async throws -> ImageResponse? {
        let cache = request.cache
        let query = request.queryCacheType
        let keys = request.keys
        let limiter = configuration.cpuLimiter
        if request.wantsPixels, let transformer = request.transformer, query.includesMemory,
           let original = await cache.memory.image(forKey: keys.originalImageKey) {
            let image = try await transform(original, with: transformer, options: request.options, limiter: limiter)
            if request.storeCacheType.includesMemory { await cache.memory.setImage(image, forKey: keys.resultKey) }
            return ImageResponse(image: image, data: nil, cacheType: .memory, url: request.url)
        }
        guard query.includesDisk, cache.disk != nil || cache.sharedTier != nil else { return nil }
        if request.wantsPixels, request.transformer != nil {
            // Already transformed: decode as stored, with the limits but no resizing.
            // Whatever goes wrong, the original below can still serve.
            if let entry = try? await cache.decodedEntry(
                forKey: keys.resultKey, options: decodeLimits,
                limiter: limiter, readErrorsAreMisses: true
            ) {
                if request.storeCacheType.includesMemory { await cache.memory.setImage(entry.image, forKey: keys.resultKey) }
                return ImageResponse(image: entry.image, data: entry.data, cacheType: .disk, url: request.url)
            }
        }
        try Task.checkCancellation()
        guard request.wantsPixels else {
            return try await cache.readEntry(forKey: keys.dataKey, readErrorsAreMisses: true).map {
                ImageResponse(image: nil, data: $0.data, cacheType: .disk, url: request.url)
            }
        }
        guard let entry = try await cache.decodedEntry(
            forKey: keys.dataKey, options: request.decodingOptions, limiter: limiter, readErrorsAreMisses: true
        ) else { return nil }
        return try await finish(request, original: entry.image, data: entry.data, head: nil, cacheType: .disk)
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
                        guard let decoder = request.cache.coders.decoder(for: accumulated)?
                            .makeProgressiveDecoder(options: request.decodingOptions) else {
                            previewsUnavailable = true
                            break
                        }
                        throttle = PreviewThrottle(
                            decoder: decoder, interval: configuration.previewInterval,
                            limiter: configuration.cpuLimiter, transformer: request.transformer,
                            deliver: { handle.preview($0) }
                        )
                    }
                    throttle?.offer(accumulated)
                case .completed(let data):
                    body = data
                }
            }
        } catch {
            throttle?.stop()
            throw error
        }
        throttle?.stop()
        // The download sequence ends without completing only when cancelled.
        guard let body else { throw CancellationError() }
        return (head, body)
    }

    /// Decodes downloaded `data` with the cache's coders, then ``finish``.
    private func process(_ request: ImageLoadRequest, data: Data, head: DataResponseHead?, sharedWritten: Bool = false) async throws -> ImageResponse {
        let original = request.wantsPixels
            ? try await request.cache.decode(data, options: request.decodingOptions, limiter: configuration.cpuLimiter)
            : nil
        return try await finish(request, original: original, data: data, head: head, cacheType: .none, sharedWritten: sharedWritten)
    }

    /// Transforms and stores a decoded original; `cacheType` says where its
    /// data came from (`.none` for the network, the only case that writes
    /// the original data to disk). Disk writes go through ``ImageCache``:
    /// with `.waitStoreCache` their failure is in the response's
    /// ``ImageResponse/storeError``; otherwise the cache counts it.
    private func finish(
        _ request: ImageLoadRequest, original: Image?, data: Data, head: DataResponseHead?, cacheType: ImageCacheType,
        sharedWritten: Bool = false
    ) async throws -> ImageResponse {
        let cache = request.cache
        let keys = request.keys
        var image = original
        if let original, let transformer = request.transformer {
            try Task.checkCancellation()
            image = try await transform(original, with: transformer, options: request.options, limiter: configuration.cpuLimiter)
        }
        if let original, request.transformer != nil, request.originalStoreCacheType.includesMemory {
            await cache.memory.setImage(original, forKey: keys.originalImageKey)
        }
        if let image, request.storeCacheType.includesMemory {
            await cache.memory.setImage(image, forKey: keys.resultKey)
        }

        var writes: [ImageCache.DiskWrite] = []
        if cacheType == .none, request.originalStoreCacheType.includesDisk {
            let stored = request.context.cacheSerializer.map { $0.cacheData(for: original, originalData: data, url: request.url) } ?? data
            if let stored, let write = cache.dataWrite(
                stored, extendedData: head.flatMap(CacheValidators.init(head:))?.encoded, forKey: keys.dataKey, toShared: !sharedWritten
            ) {
                writes.append(write)
            }
        }
        // A transformed animation is not written: the encoders write still
        // images, and a disk hit re-decodes and transforms the original.
        if let image, let original, request.transformer != nil, image.animation == nil, request.storeCacheType.includesDisk {
            // JPEG stays JPEG when there is no alpha to lose; everything else is PNG.
            let format: ImageFormat = original.format == .jpeg && !image.pixelFormat.hasAlpha ? .jpeg : .png
            if let write = cache.imageWrite(
                image, as: format, quality: configuration.transformedImageQuality, forKey: keys.resultKey, limiter: configuration.cpuLimiter
            ) {
                writes.append(write)
            }
        }
        var response = ImageResponse(image: image, data: data, cacheType: cacheType, url: request.url)
        do {
            try await cache.writeToDisk(writes, waits: request.options.contains(.waitStoreCache))
        } catch let error as CancellationError {
            throw error
        } catch {
            // The image is good, only its copy is missing: the load succeeds and says so.
            response.storeError = error as? ImageError ?? .diskIO(path: keys.dataKey, errno: 0, message: String(describing: error))
        }
        return response
    }

    /// Transforms a decoded original, as SDWebImage does: a still image
    /// once; an animation with `.transformAnimatedImage` frame by frame (a
    /// derived ``AnimatedImage`` whose frames are transformed as they are
    /// decoded, frame 0 now), and without it its first frame only, giving a
    /// still image.
    private func transform(
        _ image: Image, with transformer: any ImageTransformer, options: ImageOptions, limiter: ConcurrencyLimiter
    ) async throws -> Image {
        guard let animation = image.animation else { return try await transform(image, with: transformer, limiter: limiter) }
        guard options.contains(.transformAnimatedImage) else {
            var still = image
            still.animation = nil
            return try await transform(still, with: transformer, limiter: limiter)
        }
        let transformed = try animation.applyingToFrames { frame in try Self.apply(transformer, to: frame) }
        var first = try await limiter.withPermit { try transformed.frame(at: 0) }
        first.animation = transformed
        return first
    }

    /// Runs `transformer` on the bounded pool (see ``apply(_:to:)``).
    private func transform(_ image: Image, with transformer: any ImageTransformer, limiter: ConcurrencyLimiter) async throws -> Image {
        try await limiter.withPermit { try Self.apply(transformer, to: image) }
    }

    /// Runs `transformer`, reporting foreign errors as
    /// ``ImageError/transformFailed(key:reason:)``; cancellation (built-in
    /// transformers check for it) stays `CancellationError`.
    private static func apply(_ transformer: any ImageTransformer, to image: Image) throws -> Image {
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
