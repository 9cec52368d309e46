import Foundation
import Logging
import Tracing

extension ImageLoader {
    /// The shared work behind one task key: find or fetch the data, decode,
    /// transform, store, and tell every subscriber. Runs in its own task,
    /// cancelled when its last subscriber leaves.
    func run(_ request: ImageLoadRequest, revalidating: Bool, handle: ImageTaskCoalescer.Handle) async {
        do {
            let (response, outcome) = try await produce(request, revalidating: revalidating, handle: handle)
            if response != nil { failedURLs.remove(request.keys.origin) }
            telemetry.countLoad(outcome)
            handle.finish(.success(response))
        } catch {
            // Work cancelled by shutdown() tells its callers why.
            let error = error is CancellationError && hasShutDown ? ImageError.shutDown : error
            if configuration.blocksFailedURLs, let error = error as? ImageError, error.isPermanent {
                failedURLs.insert(request.keys.origin)
            }
            telemetry.countFailure(error)
            if !(error is CancellationError) {
                logger(for: request.context).debug("load failed", metadata: [
                    "awi.id": request.logID, "awi.error": .string((error as? ImageError)?.caseName ?? "other"),
                ])
            }
            handle.finish(.failure(error))
        }
    }

    /// The response for `request`, or `nil` when a revalidation found the
    /// cached image still current; with it, where it came from (the
    /// `outcome` of `awi_loads_total`).
    private func produce(
        _ request: ImageLoadRequest, revalidating: Bool, handle: ImageTaskCoalescer.Handle
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let logger = logger(for: request.context)
        // Switched to a `Vary` variant's own keys by the lookups below when
        // the URL's stored response is another variant.
        let primaryRequest = request
        var request = request
        var stale: StaleEntry?
        // The stored variants a request for another one names (RFC 9111 §4.3.1).
        var candidates: [VariantCandidate] = []
        if !revalidating && !request.options.contains(.fromLoaderOnly) {
            // A caller can miss memory just before an earlier piece of work
            // for the same result stores it and leaves the table; look once
            // more here, so that race costs one lookup instead of a download.
            typealias Found = (response: LoadResult?, stale: StaleEntry?, request: ImageLoadRequest, other: StaleEntry?)
            let found = try await telemetry.withChildSpan("image.cache_lookup") { [request] () async throws -> Found in
                var request = request
                var other: StaleEntry?
                // Two rounds at most: the primary keys, then (when they hold
                // another variant) the keys of this request's variant.
                for _ in 0..<2 {
                    switch try await memoryLookup(for: request) {
                    case .hit(let response): return (response, nil, request, other)
                    case .stale(let entry): return (nil, entry, request, other)
                    case .otherVariant(let entry):
                        other = entry
                        request = request.selectingVariant(varyingOn: entry.record.metadata.varyNames)
                        continue
                    case .miss: break
                    }
                    switch try await diskLookup(for: request) {
                    case .hit(let response): return (response, nil, request, other)
                    case .stale(let entry): return (nil, entry, request, other)
                    case .otherVariant(let entry):
                        other = entry
                        request = request.selectingVariant(varyingOn: entry.record.metadata.varyNames)
                    case .miss: return (nil, nil, request, other)
                    }
                }
                return (nil, nil, request, other)
            }
            request = found.request
            if found.stale == nil, let other = found.other {
                candidates = await variantCandidates(of: other, for: primaryRequest)
            }
            if let cached = found.response {
                logger.debug("cache hit", metadata: ["awi.id": request.logID, "awi.tier": .stringConvertible(cached.cacheType)])
                return (cached, cached.cacheType == .memory ? .memory : .disk)
            }
            stale = found.stale
            if request.options.contains(.fromCacheOnly) {
                // The caller forbids the network: a stale entry is served
                // unless its response forbade serving it stale.
                if let stale, stale.record.freshness.mayServeStale, let response = try await serveStored(request, stale) {
                    return (response, response.cacheType == .memory ? .memory : .disk)
                }
                throw ImageError.cacheMiss
            }
        }
        try Task.checkCancellation()
        var dataRequest = request.dataRequest
        var cachedData: Data?
        var storedMetadata: HTTPCacheMetadata?
        if let stale {
            // RFC 9111 §4.3.1: ask with the stored validators; without any
            // this is a plain request.
            stale.record.metadata.validators?.apply(to: &dataRequest)
        } else if revalidating, request.queryCacheType.includesDisk,
           let entry = try? await request.cache.readEntry(forKey: request.keys.dataKey, includeExtendedData: true) {
            cachedData = entry.data
            entry.extendedData.flatMap(CacheValidators.init(encoded:))?.apply(to: &dataRequest)
            storedMetadata = entry.extendedData.flatMap(HTTPCacheMetadata.init(encoded:))
        }
        if !candidates.isEmpty, !dataRequest.headers.contains(.ifNoneMatch) {
            // No stored response for this variant, but others: name them, so
            // that a 304 can select one (§4.3.1, §4.3.4).
            dataRequest.headers[.ifNoneMatch] = candidates.map(\.etag).joined(separator: ", ")
        }
        if revalidating, !dataRequest.headers.contains(.cacheControl) {
            // `.refreshCached` asks the origin, not a cache on the way: as
            // Fetch's "no-cache" mode (and a browser's reload) does, tell any
            // intermediary to revalidate too (RFC 9111 §5.2.1.1).
            dataRequest.headers[.cacheControl] = "max-age=0"
        }
        // Counted from before the download (waiting here while the bodies
        // held fill the budget) until this load's processing is done.
        let reservation = try await bodyBudget?.reserve()
        defer { if let reservation { bodyBudget?.release(reservation) } }
        var lease: HeldLease?
        if !revalidating && stale == nil {
            switch try await fleetLease(for: request) {
            case .leader(let taken): lease = taken
            case .served(let response):
                logger.debug("served by the shared tier", metadata: ["awi.id": request.logID])
                return (response, .shared)
            case .alone: break
            }
        }
        let (head, data): (DataResponseHead?, Data)
        let requestTime = Date()
        do {
            logger.debug("downloading", metadata: [
                "awi.id": request.logID, "awi.revalidating": .stringConvertible(revalidating || stale != nil),
            ])
            (head, data) = try await downloadTraced(request, dataRequest, handle: handle, reservation: reservation)
        } catch {
            if let lease { await lease.release() }
            if let stale, let response = try await serveStaleOnError(request, stale, error: error) {
                return (response, .staleOnError)
            }
            throw error
        }
        if let head, head.statusCode == 304 {
            if !candidates.isEmpty {
                if let response = try await serveSelectedVariant(request, among: candidates, notModified: head, requestTime: requestTime) {
                    return (response, .notModified)
                }
                logger.warning("304 selecting no stored variant; fetching it whole", metadata: ["awi.id": request.logID])
                return try await downloadWhole(request, handle: handle, reservation: reservation)
            }
            if let held = stale?.record.metadata ?? storedMetadata, !held.isSelected(by: head) {
                // The 304 names a representation other than the one stored
                // (§4.3.4): it refreshes nothing, and the stored body is no
                // longer what the origin serves. Fetch it whole.
                logger.debug("304 for another representation; fetching it whole", metadata: ["awi.id": request.logID])
                return try await downloadWhole(request, handle: handle, reservation: reservation)
            }
            if let stale {
                // Not modified: the stored entry is current again, its
                // metadata refreshed from the 304 (§4.3.4); no body came.
                let refreshed = stale.record.metadata.refreshed(
                    by: head, requestTime: requestTime, responseTime: Date(), mode: configuration.httpCacheMode
                )
                await storeRefreshed(refreshed, for: request)
                let current = StaleEntry(record: HTTPCacheRecord(refreshed, mode: configuration.httpCacheMode), image: stale.image)
                if let response = try await serveStored(request, current, validated: true) { return (response, .notModified) }
                // The entry went away meanwhile: fetch it whole.
                return try await downloadWhole(request, handle: handle, reservation: reservation)
            }
            guard cachedData != nil else { throw ImageError.httpStatus(304) }
            if let storedMetadata {
                await storeRefreshed(
                    storedMetadata.refreshed(by: head, requestTime: requestTime, responseTime: Date(), mode: configuration.httpCacheMode),
                    for: request
                )
            }
            return (nil, .notModified)
        }
        if let cachedData, cachedData == data { return (nil, .notModified) }
        let storage = storage(for: head, request: request, requestTime: requestTime)
        if let lease {
            // The fleet waits for these bytes: share them before anything
            // else (decode, transform), then let the waiters in. A response
            // that may not be stored is not shared: the waiters fetch it themselves.
            if storage.isStorable {
                await request.cache.writeToShared(lease.tier, data, extendedData: storage.extendedData, forKey: request.keys.dataKey)
            }
            await lease.release()
        }
        let response = try await process(request, data: data, head: head, storage: storage, sharedWritten: lease != nil)
        if storage.isStorable, let etag = storage.record?.metadata.etag {
            await listStoredVariant(request, primaryDataKey: primaryRequest.keys.dataKey, etag: etag)
        }
        return (response, .network)
    }

    /// The response to the request without validators, processed as a
    /// new image: what a load falls back to when a `304` cannot be used.
    private func downloadWhole(
        _ request: ImageLoadRequest, handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let requestTime = Date()
        let (head, data) = try await downloadTraced(request, request.dataRequest, handle: handle, reservation: reservation)
        if head?.statusCode == 304 { throw ImageError.httpStatus(304) }
        let storage = storage(for: head, request: request, requestTime: requestTime)
        return (try await process(request, data: data, head: head, storage: storage), .network)
    }

    /// The stale `entry` served in place of the origin's answer, which
    /// failed with `error`, where RFC 9111 §4.2.4 and `stale-if-error`
    /// (RFC 5861) allow it (``HTTPFreshness/mayServeStale(onError:at:)``);
    /// nil where they do not, or when the entry is gone. The response's head
    /// carries the error, the log says it, and `awi_loads_total` counts the
    /// load as `stale_on_error`.
    private func serveStaleOnError(_ request: ImageLoadRequest, _ entry: StaleEntry, error: any Error) async throws -> LoadResult? {
        guard followsHTTPCaching, let error = error as? ImageError,
              entry.record.freshness.mayServeStale(onError: error, at: Date()) else { return nil }
        guard let response = try await serveStored(request, entry, staleError: error) else { return nil }
        logger(for: request.context).warning("origin failed; serving the stored response stale", metadata: [
            "awi.id": request.logID, "awi.error": .string(error.caseName),
        ])
        return response
    }

    /// A download with its span, timer, byte count and log line, carrying
    /// the current trace context.
    private func downloadTraced(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, handle: ImageTaskCoalescer.Handle,
        reservation: BodyByteBudget.Reservation?
    ) async throws -> (DataResponseHead?, Data) {
        let (head, data) = try await telemetry.withChildSpan("image.download") {
            try await telemetry.timed(telemetry.downloadTimer) {
                try await download(request, injectingTraceContext(into: dataRequest), handle: handle, reservation: reservation)
            }
        }
        telemetry.countDownloaded(bytes: data.count)
        logger(for: request.context).debug("downloaded", metadata: [
            "awi.id": request.logID, "awi.bytes": .stringConvertible(data.count),
            "awi.status": .stringConvertible(head?.statusCode ?? 0),
        ])
        return (head, data)
    }

    /// A stored entry served as it is: its image when it was found in
    /// memory, else its data from disk, decoded. `nil` when the entry is gone.
    ///
    /// - Parameters:
    ///   - validated: The origin has just confirmed it (a 304).
    ///   - staleError: The origin's error it is served in place of.
    private func serveStored(
        _ request: ImageLoadRequest, _ entry: StaleEntry, validated: Bool = false, staleError: ImageError? = nil
    ) async throws -> LoadResult? {
        if let image = entry.image {
            var response = LoadResult(image: image, data: nil, cacheType: .memory, url: request.url)
            response.headSource = .stored(entry.record, tier: .memory, validated: validated, staleError: staleError)
            return response
        }
        if case .hit(var response) = try await diskLookup(for: request, acceptingStale: true, record: entry.record) {
            let tier: HTTPResponseHead.Tier = response.cacheType == .memory ? .memory : .disk
            response.headSource = .stored(entry.record, tier: tier, validated: validated, staleError: staleError)
            return response
        }
        return nil
    }

    /// `request` carrying the current trace context (`traceparent`, ...),
    /// injected through the tracer. The identity was computed before and
    /// leaves these fields out (``DataRequest/Variant``), so they split no
    /// cache key and no shared download. Without a tracer, `request` as it is.
    private func injectingTraceContext(into request: DataRequest) -> DataRequest {
        guard let tracer = telemetry.tracer, let context = ServiceContext.current else { return request }
        var request = request
        tracer.inject(context, into: &request, using: DataRequestInjector())
        return request
    }

    /// A fetch lease this server holds, with the tier that granted it: the
    /// one place the lease is shared into and released to.
    struct HeldLease {
        let lease: CacheLease
        let tier: any CacheLeasing

        func release() async { await tier.releaseLease(lease) }
    }

    /// What a load found when it asked the fleet who fetches its data.
    private enum FleetLease {
        /// This server fetches; it releases the lease once the data is shared.
        case leader(HeldLease)
        /// Another server fetched it: the response, from the shared tier.
        case served(LoadResult)
        /// No fleet to ask (no leasing tier, or it did not answer): fetch.
        case alone
    }

    /// Asks the shared tier (when it elects fetchers: ``ImageCache/leasing``) who
    /// downloads this load's data: this server, or another one whose result
    /// it then waits for. Only loads whose original data is stored as
    /// downloaded take part (a cache serializer stores other bytes).
    private func fleetLease(for request: ImageLoadRequest) async throws -> FleetLease {
        guard let leasing = request.cache.leasing,
              request.queryCacheType.includesDisk, request.originalStoreCacheType.includesDisk,
              request.context.cacheSerializer == nil else { return .alone }
        let key = request.keys.dataKey
        // Bounded: a lease can be taken over at most twice before this server fetches alone.
        for _ in 0..<2 {
            switch await leasing.acquireLease(forKey: key) {
            case .acquired(let lease):
                return .leader(HeldLease(lease: lease, tier: leasing))
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
    /// decoded (a miss, then). Stale entries are served too.
    func diskResponse(for request: ImageLoadRequest) async throws -> LoadResult? {
        if case .hit(let response) = try await diskLookup(for: request, acceptingStale: true) { return response }
        return nil
    }

    /// ``diskResponse(for:)`` judged by HTTP freshness: the data entry's
    /// stored metadata decides for the transformed entry too (both come from
    /// one response), and a memory-held original by its own record.
    ///
    /// - Parameters:
    ///   - acceptingStale: Serve a stale entry as a hit.
    ///   - record: The record to judge and store with, when the caller has
    ///     it already (a 304 just refreshed it); read from the tier otherwise.
    func diskLookup(for request: ImageLoadRequest, acceptingStale: Bool = false, record known: HTTPCacheRecord? = nil) async throws -> CacheLookup {
        let cache = request.cache
        let query = request.queryCacheType
        let keys = request.keys
        let limiter = configuration.cpuLimiter
        if request.wantsPixels, let transformer = request.transformer, query.includesMemory,
           let original = cache.memory.entry(forKey: keys.originalImageKey),
           known != nil || isUsableWithoutRevalidation(original.http, for: request.dataRequest) {
            let image = try await transform(original.image, with: transformer, options: request.options, limiter: limiter)
            let record = known ?? original.http
            if request.storeCacheType.includesMemory {
                await cache.memory.setImage(image, forKey: keys.resultKey, http: record)
            }
            var response = LoadResult(image: image, data: nil, cacheType: .memory, url: request.url)
            response.headSource = record.map { .stored($0, tier: .memory) }
            return .hit(response)
        }
        guard query.includesDisk, cache.disk != nil || cache.sharedTier != nil else { return .miss }
        var record = known
        var revalidatesLater = false
        if record == nil, let metadata = await storedMetadata(for: request) {
            let found = HTTPCacheRecord(metadata, mode: configuration.httpCacheMode)
            if followsHTTPCaching {
                guard metadata.matchesVary(request.dataRequest) else {
                    return request.varyKey == nil ? .otherVariant(StaleEntry(record: found, image: nil)) : .miss
                }
                if !acceptingStale {
                    switch found.reuse(for: request.dataRequest, at: Date()) {
                    case .fresh: break
                    case .staleWhileRevalidate: revalidatesLater = true
                    case .stale: return .stale(StaleEntry(record: found, image: nil))
                    }
                }
            }
            record = found
        }
        let memoryRecord = record
        let headSource = record.map { ResponseHeadSource.stored($0, tier: .disk) }
        if request.wantsPixels, request.transformer != nil {
            // Already transformed: decode as stored, with the limits but no resizing.
            // Whatever goes wrong, the original below can still serve.
            if let entry = try? await cache.decodedEntry(
                forKey: keys.resultKey, options: decodeLimits, coders: configuration.coders,
                limiter: limiter, readErrorsAreMisses: true, telemetry: telemetry, logger: logger(for: request.context)
            ) {
                if request.storeCacheType.includesMemory {
                    await cache.memory.setImage(entry.image, forKey: keys.resultKey, http: memoryRecord)
                }
                if revalidatesLater, let record { revalidateInBackground(request, record: record) }
                var response = LoadResult(image: entry.image, data: entry.data, cacheType: .disk, url: request.url)
                response.headSource = headSource
                return .hit(response)
            }
        }
        try Task.checkCancellation()
        let response: LoadResult?
        if request.wantsPixels {
            if let entry = try await cache.decodedEntry(
                forKey: keys.dataKey, options: request.decodingOptions, coders: configuration.coders, limiter: limiter, readErrorsAreMisses: true,
                telemetry: telemetry, logger: logger(for: request.context)
            ) {
                response = try await finish(
                    request, original: entry.image, data: entry.data, head: nil, storage: .cached(memoryRecord), cacheType: .disk
                )
            } else {
                response = nil
            }
        } else {
            response = try await cache.readEntry(forKey: keys.dataKey, readErrorsAreMisses: true).map {
                LoadResult(image: nil, data: $0.data, cacheType: .disk, url: request.url)
            }
        }
        guard var response else { return .miss }
        response.headSource = headSource
        if revalidatesLater, let record { revalidateInBackground(request, record: record) }
        return .hit(response)
    }

    /// Downloads through the coalescer, broadcasting progress and (when a
    /// subscriber wants them) previews; `reservation`'s charge follows the
    /// body's declared or received size.
    private func download(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, handle: ImageTaskCoalescer.Handle,
        reservation: BodyByteBudget.Reservation?
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
                    if head != nil {
                        // The body restarts (a resumed transfer got another
                        // representation): previews start again with it.
                        throttle?.stop()
                        throttle = nil
                        previewsUnavailable = !request.wantsPixels
                    }
                    head = received
                case .progress(let received, let expected):
                    handle.progress(received: received, expected: expected)
                    if let reservation { bodyBudget?.charge(reservation, bytes: Int(max(received, expected ?? 0))) }
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
                            limiter: configuration.cpuLimiter, transformer: request.transformer,
                            deliver: { handle.preview($0) }
                        )
                    }
                    throttle?.offer(accumulated)
                case .completed(let data):
                    body = data
                    if let reservation { bodyBudget?.charge(reservation, bytes: data.count) }
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
    func process(
        _ request: ImageLoadRequest, data: Data, head: DataResponseHead?, storage: ResponseStorage, sharedWritten: Bool = false
    ) async throws -> LoadResult {
        let original = request.wantsPixels
            ? try await telemetry.withChildSpan("image.decode") {
                try await telemetry.timedDecode {
                    try await configuration.coders.decode(data, options: request.decodingOptions, limiter: configuration.cpuLimiter)
                }
            }
            : nil
        return try await finish(request, original: original, data: data, head: head, storage: storage, cacheType: .none, sharedWritten: sharedWritten)
    }

    /// Transforms and stores a decoded original; `cacheType` says where its
    /// data came from (`.none` for the network, the only case that writes
    /// the original data to disk). Disk writes go through ``ImageCache``:
    /// with `.waitStoreCache` their failure is in the response's
    /// ``LoadResult/storeError``; otherwise the cache counts it.
    /// `storage` says whether the response may be stored at all (no tier
    /// keeps a `no-store` image) and what its entries carry.
    private func finish(
        _ request: ImageLoadRequest, original: Image?, data: Data, head: DataResponseHead?, storage: ResponseStorage,
        cacheType: ImageCacheType, sharedWritten: Bool = false
    ) async throws -> LoadResult {
        let cache = request.cache
        let keys = request.keys
        var image = original
        if let original, let transformer = request.transformer {
            try Task.checkCancellation()
            image = try await transform(original, with: transformer, options: request.options, limiter: configuration.cpuLimiter)
        }
        var response = LoadResult(image: image, data: data, cacheType: cacheType, url: request.url)
        if let head {
            response.headSource = .received(head)
        } else if let record = storage.record {
            response.headSource = .stored(record, tier: cacheType == .memory ? .memory : .disk)
        }
        guard storage.isStorable else { return response }
        if let original, request.transformer != nil, request.originalStoreCacheType.includesMemory {
            await cache.memory.setImage(original, forKey: keys.originalImageKey, http: storage.record)
        }
        if let image, request.storeCacheType.includesMemory {
            await cache.memory.setImage(image, forKey: keys.resultKey, http: storage.record)
        }

        var writes: [ImageCache.DiskWrite] = []
        if cacheType == .none, request.originalStoreCacheType.includesDisk {
            let stored = request.context.cacheSerializer.map { $0.cacheData(for: original, originalData: data, url: request.url) } ?? data
            if let stored, let write = cache.dataWrite(
                stored, extendedData: storage.extendedData, forKey: keys.dataKey, toShared: !sharedWritten
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
                image, as: format, quality: configuration.transformedImageQuality, forKey: keys.resultKey,
                coders: configuration.coders, limiter: configuration.cpuLimiter,
                encodeTimer: telemetry.encodeTimer
            ) {
                writes.append(write)
            }
        }
        do {
            let logger = logger(for: request.context)
            try await telemetry.withChildSpan("image.store") {
                try await cache.writeToDisk(writes, waits: request.options.contains(.waitStoreCache), logger: logger, id: request.logID)
            }
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
        var first = try await limiter.withPermit { try transformed.decodeFrame(at: 0) }
        first.animation = transformed
        return first
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

    /// Runs `transformer` on the bounded pool, in a span and timed.
    func transform(_ image: Image, with transformer: any ImageTransformer, limiter: ConcurrencyLimiter) async throws -> Image {
        try await telemetry.withChildSpan("image.transform") {
            try await telemetry.timed(telemetry.transformTimer) {
                try await limiter.withPermit { try Self.apply(transformer, to: image) }
            }
        }
    }
}
