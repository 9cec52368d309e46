import Foundation
import Logging

/// The coordinator of a load's stages. Each stage is a small type with one
/// job (``MemoryStage``, ``DiskStage``, ``FetchStage``, ``DecodeStage``,
/// ``TransformStage``, ``StoreStage``); what is here is the order they run
/// in and what HTTP caching decides between them (stale entries, variants,
/// `304`s, the fleet lease). The task coalescer runs one of these per task
/// key, whatever the number of callers.
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

    // MARK: The caches

    /// ``MemoryStage/lookup(_:acceptingStale:)``, starting the background
    /// revalidation of an entry it serves while stale.
    func memoryLookup(for request: ImageLoadRequest, acceptingStale: Bool = false) async -> CacheLookup {
        let found = await memoryStage.lookup(request, acceptingStale: acceptingStale)
        if case .hit(_, let record?) = found { revalidateInBackground(request, record: record) }
        return found
    }

    /// The result from the caches below the memory fast path: the decoded
    /// original in memory (then only the transform runs), else what the
    /// ``DiskStage`` finds — the transformed entry, or the original's bytes,
    /// then transformed and stored. A hit served while stale starts its
    /// background revalidation.
    ///
    /// - Parameters:
    ///   - acceptingStale: Serve a stale entry as a hit.
    ///   - known: The record to judge and store with, when the caller has
    ///     it already (a 304 just refreshed it).
    func storedLookup(for request: ImageLoadRequest, acceptingStale: Bool = false, record known: HTTPCacheRecord? = nil) async throws -> CacheLookup {
        if let transformer = request.transformer, let original = memoryStage.original(of: request, validated: known) {
            let image = try await transformStage.transform(original.image, with: transformer, options: request.options)
            await storeStage.remember(image, for: request, record: original.record)
            var response = LoadResult(image: image, data: nil, cacheType: .memory, url: request.url)
            response.headSource = original.record.map { .stored($0, tier: .memory) }
            return .hit(response)
        }
        let found = try await diskStage.lookup(request, acceptingStale: acceptingStale, record: known, logger: logger(for: request.context))
        let response: LoadResult
        let record: HTTPCacheRecord?
        let revalidate: Bool
        switch found {
        case .result(let image, let data, let stored, let stale):
            await storeStage.remember(image, for: request, record: stored)
            (response, record, revalidate) = (LoadResult(image: image, data: data, cacheType: .disk, url: request.url), stored, stale)
        case .original(let image, let data, let stored, let stale):
            let completed = request.wantsPixels
                ? try await complete(request, original: image, data: data, head: nil, storage: .cached(stored), source: .disk)
                : LoadResult(image: nil, data: data, cacheType: .disk, url: request.url)
            (response, record, revalidate) = (completed, stored, stale)
        case .stale(let entry): return .stale(entry)
        case .otherVariant(let entry): return .otherVariant(entry)
        case .miss: return .miss
        }
        var hit = response
        hit.headSource = record.map { .stored($0, tier: .disk) }
        if revalidate, let record { revalidateInBackground(request, record: record) }
        return .hit(hit)
    }

    /// ``storedLookup(for:acceptingStale:record:)`` taking stale entries
    /// too: the response, or nil on a miss.
    func storedResponse(for request: ImageLoadRequest) async throws -> LoadResult? {
        if case .hit(let response, _) = try await storedLookup(for: request, acceptingStale: true) { return response }
        return nil
    }

    /// What the caches hold for a load: memory, then disk and the shared
    /// tier, under the primary keys and then (when they hold another
    /// variant of a `Vary` response) under this request's variant keys.
    private struct CacheSearch {
        var response: LoadResult?
        var stale: StaleEntry?
        /// The request whose keys found it: a variant's, after a switch.
        var request: ImageLoadRequest
        /// The other variant stored under the primary keys, if one was found.
        var otherVariant: StaleEntry?
    }

    /// Searches the caches for `request`, in an `image.cache_lookup` span.
    private func searchCaches(for request: ImageLoadRequest) async throws -> CacheSearch {
        try await telemetry.withChildSpan("image.cache_lookup") { () async throws -> CacheSearch in
            var search = CacheSearch(request: request)
            // Two rounds at most: the primary keys, then (when they hold
            // another variant) the keys of this request's variant.
            for _ in 0..<2 {
                var found = await memoryLookup(for: search.request)
                if case .miss = found { found = try await storedLookup(for: search.request) }
                switch found {
                case .hit(let response, _):
                    search.response = response
                    return search
                case .stale(let entry):
                    search.stale = entry
                    return search
                case .otherVariant(let entry):
                    search.otherVariant = entry
                    search.request = search.request.selectingVariant(varyingOn: entry.record.metadata.varyNames)
                case .miss:
                    return search
                }
            }
            return search
        }
    }

    // MARK: The load

    /// The response for `request`, or `nil` when a revalidation found the
    /// cached image still current; with it, where it came from (the
    /// `outcome` of `awi_loads_total`).
    private func produce(
        _ request: ImageLoadRequest, revalidating: Bool, handle: ImageTaskCoalescer.Handle
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let logger = logger(for: request.context)
        // Switched to a `Vary` variant's own keys by the search below when
        // the URL's stored response is another variant.
        let primaryRequest = request
        var request = request
        var stale: StaleEntry?
        // The stored variants a request for another one names (RFC 9111 §4.3.1).
        var candidates: [VariantCandidate] = []
        if !revalidating && !request.options.contains(.fromLoaderOnly) {
            // A caller can miss memory just before an earlier piece of work
            // for the same result stores it and leaves the table; the search
            // looks once more, so that race costs one lookup instead of a download.
            let found = try await searchCaches(for: request)
            request = found.request
            if found.stale == nil, let other = found.otherVariant {
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
        var lease: FetchStage.HeldLease?
        if !revalidating && stale == nil {
            switch try await fetchStage.fleetLease(for: request) {
            case .leader(let taken):
                lease = taken
            case .storedByOther:
                // Read through the cache: the disk fill and the decode rules of a disk hit.
                if let response = try await storedResponse(for: request) {
                    logger.debug("served by the shared tier", metadata: ["awi.id": request.logID])
                    return (response, .shared)
                }
            case .alone:
                break
            }
        }
        let (head, data): (DataResponseHead?, Data)
        let requestTime = Date()
        do {
            logger.debug("downloading", metadata: [
                "awi.id": request.logID, "awi.revalidating": .stringConvertible(revalidating || stale != nil),
            ])
            (head, data) = try await fetch(request, dataRequest, handle: handle, reservation: reservation)
        } catch {
            if let lease { await lease.release() }
            if let stale, let response = try await serveStaleOnError(request, stale, error: error) {
                return (response, .staleOnError)
            }
            throw error
        }
        if let head, head.statusCode == 304 {
            return try await notModified(
                request, head: head, requestTime: requestTime, candidates: candidates, stale: stale,
                stored: (cachedData, storedMetadata), handle: handle, reservation: reservation
            )
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

    /// A `304 Not Modified` to the load's conditional request: the stored
    /// variant it selects, the stale entry it refreshes, or — when it names
    /// another representation or its entry is gone — the image fetched whole.
    ///
    /// - Parameter stored: What `.refreshCached` read from disk before asking.
    private func notModified(
        _ request: ImageLoadRequest, head: DataResponseHead, requestTime: Date, candidates: [VariantCandidate],
        stale: StaleEntry?, stored: (data: Data?, metadata: HTTPCacheMetadata?),
        handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let logger = logger(for: request.context)
        let mode = configuration.httpCacheMode
        if !candidates.isEmpty {
            if let response = try await serveSelectedVariant(request, among: candidates, notModified: head, requestTime: requestTime) {
                return (response, .notModified)
            }
            logger.warning("304 selecting no stored variant; fetching it whole", metadata: ["awi.id": request.logID])
            return try await downloadWhole(request, handle: handle, reservation: reservation)
        }
        if let held = stale?.record.metadata ?? stored.metadata, !held.isSelected(by: head) {
            // The 304 names a representation other than the one stored
            // (§4.3.4): it refreshes nothing, and the stored body is no
            // longer what the origin serves. Fetch it whole.
            logger.debug("304 for another representation; fetching it whole", metadata: ["awi.id": request.logID])
            return try await downloadWhole(request, handle: handle, reservation: reservation)
        }
        if let stale {
            // Not modified: the stored entry is current again, its
            // metadata refreshed from the 304 (§4.3.4); no body came.
            let refreshed = stale.record.metadata.refreshed(by: head, requestTime: requestTime, responseTime: Date(), mode: mode)
            await storeStage.storeRefreshed(refreshed, for: request, mode: mode)
            let current = StaleEntry(record: HTTPCacheRecord(refreshed, mode: mode), image: stale.image)
            if let response = try await serveStored(request, current, validated: true) { return (response, .notModified) }
            // The entry went away meanwhile: fetch it whole.
            return try await downloadWhole(request, handle: handle, reservation: reservation)
        }
        guard stored.data != nil else { throw ImageError.httpStatus(304) }
        if let metadata = stored.metadata {
            await storeStage.storeRefreshed(
                metadata.refreshed(by: head, requestTime: requestTime, responseTime: Date(), mode: mode), for: request, mode: mode
            )
        }
        return (nil, .notModified)
    }

    /// The response to the request without validators, processed as a
    /// new image: what a load falls back to when a `304` cannot be used.
    private func downloadWhole(
        _ request: ImageLoadRequest, handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let requestTime = Date()
        let (head, data) = try await fetch(request, request.dataRequest, handle: handle, reservation: reservation)
        if head?.statusCode == 304 { throw ImageError.httpStatus(304) }
        let storage = storage(for: head, request: request, requestTime: requestTime)
        return (try await process(request, data: data, head: head, storage: storage), .network)
    }

    /// ``FetchStage/download(_:_:through:handle:reservation:logger:)`` through
    /// the coalescer of the request's data loader.
    private func fetch(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (DataResponseHead?, Data) {
        try await fetchStage.download(
            request, dataRequest, through: downloadCoalescer(for: request.context.dataLoader),
            handle: handle, reservation: reservation, logger: logger(for: request.context)
        )
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
        if case .hit(var response, _) = try await storedLookup(for: request, acceptingStale: true, record: entry.record) {
            let tier: HTTPResponseHead.Tier = response.cacheType == .memory ? .memory : .disk
            response.headSource = .stored(entry.record, tier: tier, validated: validated, staleError: staleError)
            return response
        }
        return nil
    }

    // MARK: Decode, transform, store

    /// Decodes downloaded `data` (``DecodeStage``), then ``complete(_:original:data:head:storage:source:sharedWritten:)``.
    func process(
        _ request: ImageLoadRequest, data: Data, head: DataResponseHead?, storage: ResponseStorage, sharedWritten: Bool = false
    ) async throws -> LoadResult {
        let original = request.wantsPixels ? try await decodeStage.decode(data, options: request.decodingOptions) : nil
        return try await complete(request, original: original, data: data, head: head, storage: storage, source: .none, sharedWritten: sharedWritten)
    }

    /// Transforms (``TransformStage``) and stores (``StoreStage``) a decoded
    /// original; `source` says where its data came from (`.none` for the
    /// network). With `.waitStoreCache` a failed disk write is in the
    /// response's ``LoadResult/storeError``; otherwise the cache counts it.
    private func complete(
        _ request: ImageLoadRequest, original: Image?, data: Data, head: DataResponseHead?, storage: ResponseStorage,
        source: ImageCacheType, sharedWritten: Bool = false
    ) async throws -> LoadResult {
        var image = original
        if let original, let transformer = request.transformer {
            try Task.checkCancellation()
            image = try await transformStage.transform(original, with: transformer, options: request.options)
        }
        var response = LoadResult(image: image, data: data, cacheType: source, url: request.url)
        if let head {
            response.headSource = .received(head)
        } else if let record = storage.record {
            response.headSource = .stored(record, tier: source == .memory ? .memory : .disk)
        }
        response.storeError = try await storeStage.store(
            request, original: original, image: image, data: data, storage: storage,
            source: source, sharedWritten: sharedWritten, logger: logger(for: request.context)
        )
        return response
    }
}
