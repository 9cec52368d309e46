import Foundation
import Logging

/// The coordinator of a load's stages. Each stage is a small type with one
/// job (``MemoryStage``, ``DiskStage``, ``FetchStage``, ``DecodeStage``,
/// ``TransformStage``, ``StoreStage``); what is here is the order they run
/// in: what the tiers hold, the plan the ``HTTPCachePolicy`` makes of it
/// (``FetchPlan``), then that plan's one fetch path — the fleet lease, the
/// body budget, the download, a `304`, a stale entry when the origin fails.
/// The task coalescer runs one of these per task key, whatever the number
/// of callers.
extension ImageLoader {
    /// Why a piece of shared work runs.
    enum Work {
        /// A load: the tiers first, then the origin as the policy plans.
        case load
        /// A revalidation of what the tiers hold, after its caller was
        /// served the cached image: `.refreshCached` (`known` nil: the
        /// stored entry is read), or the background revalidation of an entry
        /// served while stale (`stale-while-revalidate`, `known` its record).
        /// A conditional request; the work ends with no response when the
        /// origin says the cached image is current.
        case revalidation(known: HTTPCacheRecord?)

        var revalidates: Bool {
            if case .revalidation = self { true } else { false }
        }
    }

    /// The shared work behind one task key: find or fetch the data, decode,
    /// transform, store, and tell every subscriber. Runs in its own task,
    /// cancelled when its last subscriber leaves.
    func run(_ request: ImageLoadRequest, work: Work, handle: ImageTaskCoalescer.Handle) async {
        do {
            let (response, outcome) = try await produce(request, work: work, handle: handle)
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
    /// then transformed and stored. A hit served while stale carries the
    /// record to revalidate in the background (the caller starts it).
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
            response.headSource = original.record.map { .stored($0) }
            return .hit(response)
        }
        let found = try await diskStage.lookup(request, acceptingStale: acceptingStale, record: known, logger: logger(for: request.context))
        let response: LoadResult
        let record: HTTPCacheRecord?
        let revalidate: Bool
        switch found {
        case .result(let image, let data, let stored, let stale, let shared):
            await storeStage.remember(image, for: request, record: stored)
            var result = LoadResult(image: image, data: data, cacheType: .disk, url: request.url)
            result.fromSharedTier = shared
            (response, record, revalidate) = (result, stored, stale)
        case .original(let image, let data, let stored, let stale, let shared):
            var completed = request.wantsPixels
                ? try await complete(request, original: image, data: data, head: nil, storage: .cached(stored), source: .disk)
                : LoadResult(image: nil, data: data, cacheType: .disk, url: request.url)
            completed.fromSharedTier = shared
            (response, record, revalidate) = (completed, stored, stale)
        case .stale(let entry): return .stale(entry)
        case .otherVariant(let entry): return .otherVariant(entry)
        case .miss: return .miss
        }
        var hit = response
        hit.headSource = record.map { .stored($0) }
        return .hit(hit, revalidate: revalidate ? record : nil)
    }

    /// ``storedLookup(for:acceptingStale:record:)`` taking stale entries
    /// too: the response, or nil on a miss.
    func storedResponse(for request: ImageLoadRequest) async throws -> LoadResult? {
        if case .hit(let response, _) = try await storedLookup(for: request, acceptingStale: true) { return response }
        return nil
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
                case .hit(let response, let revalidate):
                    search.response = response
                    search.revalidate = revalidate
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

    /// What a revalidation asks the origin about: the stored original's
    /// bytes and metadata on disk (or in the shared tier), else the record
    /// of the image in memory; nil when neither tier holds the image.
    private func revalidationEntry(for request: ImageLoadRequest) async -> StaleEntry? {
        if let stored = await diskStage.storedOriginal(for: request) {
            return StaleEntry(record: cachePolicy.record(stored.metadata ?? HTTPCacheMetadata()), image: nil, data: stored.data)
        }
        if request.queryCacheType.includesMemory, let entry = request.cache.memory.entry(forKey: request.keys.resultKey), let record = entry.http {
            return StaleEntry(record: record, image: entry.image)
        }
        return nil
    }

    // MARK: The plan

    /// What the work does, with the request whose keys it does it under
    /// (a `Vary` variant's, after the search switched to them) and the
    /// stored variants a conditional request for this one names (§4.3.1).
    private struct Planned {
        var plan: FetchPlan
        var request: ImageLoadRequest
        /// The data key of the URL's primary entry, which lists the variants stored.
        var primaryDataKey: String
        var candidates: [VariantCandidate] = []
    }

    /// The plan of `work` for `request`: a revalidation asks the origin
    /// about what is stored; a load asks the tiers first
    /// (``searchCaches(for:)``), then the policy
    /// (``HTTPCachePolicy/plan(_:cacheOnly:)``).
    private func plan(_ request: ImageLoadRequest, work: Work) async throws -> Planned {
        switch work {
        case .revalidation(let known?):
            return Planned(plan: .fetchConditionally(StaleEntry(record: known, image: nil)), request: request, primaryDataKey: request.keys.dataKey)
        case .revalidation(nil):
            let entry = await revalidationEntry(for: request)
            return Planned(plan: entry.map(FetchPlan.fetchConditionally) ?? .fetchWhole, request: request, primaryDataKey: request.keys.dataKey)
        case .load:
            let cacheOnly = request.options.contains(.fromCacheOnly)
            guard !request.options.contains(.fromLoaderOnly) else {
                return Planned(plan: .fetchWhole, request: request, primaryDataKey: request.keys.dataKey)
            }
            // A caller can miss memory just before an earlier piece of work
            // for the same result stores it and leaves the table; the search
            // looks once more, so that race costs one lookup instead of a download.
            let found = try await searchCaches(for: request)
            var planned = Planned(
                plan: try cachePolicy.plan(found, cacheOnly: cacheOnly), request: found.request, primaryDataKey: request.keys.dataKey
            )
            if found.stale == nil, found.response == nil, let other = found.otherVariant {
                planned.candidates = await variantCandidates(of: other, for: request)
            }
            return planned
        }
    }

    // MARK: The load

    /// The response for `request`, or `nil` when a revalidation found the
    /// cached image still current; with it, where it came from (the
    /// `outcome` of `awi_loads_total`).
    private func produce(
        _ request: ImageLoadRequest, work: Work, handle: ImageTaskCoalescer.Handle
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let planned = try await plan(request, work: work)
        let request = planned.request
        switch planned.plan {
        case .serve(let response, let revalidate):
            logger(for: request.context).debug("cache hit", metadata: ["awi.id": request.logID, "awi.tier": .stringConvertible(response.cacheType)])
            if let revalidate { revalidateInBackground(request, record: revalidate) }
            return (response, Self.outcome(of: response))
        case .serveStale(let entry):
            guard let response = try await serveStored(request, entry) else { throw ImageError.cacheMiss }
            return (response, Self.outcome(of: response))
        case .fetchConditionally(let entry):
            try Task.checkCancellation()
            return try await fetch(request, revalidating: entry, work: work, candidates: [], primaryDataKey: planned.primaryDataKey, handle: handle)
        case .fetchWhole:
            try Task.checkCancellation()
            return try await fetch(
                request, revalidating: nil, work: work, candidates: planned.candidates, primaryDataKey: planned.primaryDataKey, handle: handle
            )
        }
    }

    /// The outcome a response from the tiers counts as.
    private static func outcome(of response: LoadResult) -> LoaderTelemetry.Outcome {
        response.cacheType == .memory ? .memory : .disk
    }

    /// The one fetch path: the fleet lease, the body budget, the download
    /// (conditional when `entry` is being revalidated), then a `304`, a
    /// stale entry served in place of a failing origin, or the new image
    /// decoded, transformed and stored.
    ///
    /// - Parameters:
    ///   - entry: The stored entry this fetch revalidates, if any.
    ///   - candidates: Other stored variants a `304` may select (§4.3.1).
    ///   - primaryDataKey: The data key of the URL's primary entry, which
    ///     lists the variants stored.
    private func fetch(
        _ request: ImageLoadRequest, revalidating entry: StaleEntry?, work: Work, candidates: [VariantCandidate],
        primaryDataKey: String, handle: ImageTaskCoalescer.Handle
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let logger = logger(for: request.context)
        let dataRequest = conditionalRequest(request, revalidating: entry, candidates: candidates, work: work)
        // Counted from before the download (waiting here while the bodies
        // held fill the budget) until this load's processing is done.
        let reservation = try await bodyBudget?.reserve()
        defer { if let reservation { bodyBudget?.release(reservation) } }
        let lease: FetchStage.HeldLease?
        switch try await fleetTurn(request, revalidating: entry, work: work) {
        case .served(let served): return served
        case .fetch(let held): lease = held
        }
        let (head, data): (HTTPResponseHead?, Data)
        let requestTime = Date()
        do {
            logger.debug("downloading", metadata: ["awi.id": request.logID, "awi.revalidating": .stringConvertible(entry != nil)])
            (head, data) = try await download(request, dataRequest, handle: handle, reservation: reservation)
        } catch {
            if let lease { await lease.release() }
            // A stale entry stands in for a failing origin where RFC 9111
            // allows (a load's only); a revalidation's caller has its image.
            if !work.revalidates, let entry, let response = try await serveStaleOnError(request, entry, error: error) {
                return (response, .staleOnError)
            }
            throw error
        }
        if let head, head.statusCode == 304 {
            // The lease is let go once the refreshed metadata is in the
            // shared tier, where the fleet's waiters read it.
            let result: (LoadResult?, LoaderTelemetry.Outcome)
            do {
                result = try await notModified(
                    request, head: head, requestTime: requestTime, candidates: candidates, entry: entry, work: work,
                    handle: handle, reservation: reservation
                )
            } catch {
                if let lease { await lease.release() }
                throw error
            }
            if let lease { await lease.release() }
            return result
        }
        if work.revalidates, let stored = entry?.data, stored == data {
            // The origin ignored the validators and sent the same bytes: nothing changed.
            if let lease { await lease.release() }
            return (nil, .notModified)
        }
        let storage = cachePolicy.storage(
            for: head, request: request.dataRequest, requestTime: requestTime, encodesMetadata: request.cache.keepsEncodedData
        )
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
            await listStoredVariant(request, primaryDataKey: primaryDataKey, etag: etag)
        }
        return (response, .network)
    }

    /// The request the fetch sends: with the stored entry's validators
    /// (RFC 9111 §4.3.1; without any, a plain request), naming the other
    /// stored variants a `304` may select, asking intermediaries to
    /// revalidate for `.refreshCached`, and at low priority for a
    /// background revalidation.
    private func conditionalRequest(
        _ request: ImageLoadRequest, revalidating entry: StaleEntry?, candidates: [VariantCandidate], work: Work
    ) -> DataRequest {
        var dataRequest = request.dataRequest
        entry?.record.metadata.validators?.apply(to: &dataRequest)
        if !candidates.isEmpty, !dataRequest.headers.contains(.ifNoneMatch) {
            // No stored response for this variant, but others: name them, so
            // that a 304 can select one (§4.3.1, §4.3.4).
            dataRequest.headers[.ifNoneMatch] = candidates.map(\.etag).joined(separator: ", ")
        }
        if request.options.contains(.refreshCached), !dataRequest.headers.contains(.cacheControl) {
            // `.refreshCached` asks the origin, not a cache on the way: as
            // Fetch's "no-cache" mode (and a browser's reload) does, tell any
            // intermediary to revalidate too (RFC 9111 §5.2.1.1).
            dataRequest.headers[.cacheControl] = "max-age=0"
        }
        if case .revalidation(_?) = work { dataRequest.priority = .low }
        return dataRequest
    }

    /// What the fleet's lease made of a fetch: this server fetches (holding
    /// the lease, or alone), or another server's work already answered it.
    private enum FleetTurn {
        case fetch(FetchStage.HeldLease?)
        case served((LoadResult?, LoaderTelemetry.Outcome))
    }

    /// Asks the fleet whose turn it is to fetch: this server's (with the
    /// lease), or another's, whose stored result then serves this load — the
    /// entry it fetched, or the entry it revalidated.
    private func fleetTurn(_ request: ImageLoadRequest, revalidating entry: StaleEntry?, work: Work) async throws -> FleetTurn {
        switch try await fetchStage.fleetLease(for: request, revalidating: entry != nil) {
        case .leader(let taken):
            return .fetch(taken)
        case .storedByOther:
            // Read through the cache: the disk fill and the decode rules of a disk hit.
            if let response = try await storedResponse(for: request) {
                logger(for: request.context).debug("served by the shared tier", metadata: ["awi.id": request.logID])
                return .served((response, .shared))
            }
        case .revalidatedByOther:
            if let entry, let served = try await servedAfterPeerRevalidation(request, entry, work: work) { return .served(served) }
        case .alone:
            break
        }
        return .fetch(nil)
    }

    /// After another server of the fleet held the revalidation lease of
    /// `entry` and let it go: the entry as that server left it in the shared
    /// tier, when it is current now — served (a load), or the end of a
    /// revalidation with nothing to change. Nil when it is still stale
    /// (the peer's revalidation failed): this server asks the origin itself.
    private func servedAfterPeerRevalidation(
        _ request: ImageLoadRequest, _ entry: StaleEntry, work: Work
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome)? {
        guard let metadata = await diskStage.sharedMetadata(for: request),
              metadata.responseTime != entry.record.metadata.responseTime else { return nil }
        let record = cachePolicy.record(metadata)
        guard case .usable = StoredVerdict(record, for: request, acceptingStale: false) else { return nil }
        // The peer's refreshed metadata, here too (disk and memory).
        await storeStage.storeRefreshed(metadata, for: request, policy: cachePolicy)
        logger(for: request.context).debug("revalidated by the fleet", metadata: ["awi.id": request.logID])
        guard !work.revalidates else { return (nil, .notModified) }
        guard let response = try await serveStored(request, StaleEntry(record: record, image: entry.image)) else { return nil }
        return (response, .shared)
    }

    /// A `304 Not Modified` to the work's conditional request: the stored
    /// variant it selects, the entry it refreshes (served by a load; a
    /// revalidation ends with no response), or — when it names another
    /// representation or its entry is gone — the image fetched whole.
    private func notModified(
        _ request: ImageLoadRequest, head: HTTPResponseHead, requestTime: Date, candidates: [VariantCandidate],
        entry: StaleEntry?, work: Work, handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let logger = logger(for: request.context)
        if !candidates.isEmpty {
            if let response = try await serveSelectedVariant(request, among: candidates, notModified: head, requestTime: requestTime) {
                return (response, .notModified)
            }
            logger.warning("304 selecting no stored variant; fetching it whole", metadata: ["awi.id": request.logID])
            return try await downloadWhole(request, handle: handle, reservation: reservation)
        }
        // A 304 to a request that named no validator refreshes nothing.
        guard let entry else { throw ImageError.httpStatus(304) }
        guard entry.record.metadata.isSelected(by: head) else {
            // The 304 names a representation other than the one stored
            // (§4.3.4): it refreshes nothing, and the stored body is no
            // longer what the origin serves. Fetch it whole.
            logger.debug("304 for another representation; fetching it whole", metadata: ["awi.id": request.logID])
            return try await downloadWhole(request, handle: handle, reservation: reservation)
        }
        // Not modified: the stored entry is current again, its metadata
        // refreshed from the 304 (§4.3.4); no body came.
        let refreshed = entry.record.metadata.refreshed(by: head, requestTime: requestTime, responseTime: Date(), mode: cachePolicy.mode)
        await storeStage.storeRefreshed(refreshed, for: request, policy: cachePolicy)
        guard !work.revalidates else { return (nil, .notModified) }
        let current = StaleEntry(record: cachePolicy.record(refreshed), image: entry.image)
        if let response = try await serveStored(request, current, validated: true) { return (response, .notModified) }
        // The entry went away meanwhile: fetch it whole.
        return try await downloadWhole(request, handle: handle, reservation: reservation)
    }

    /// The response to the request without validators, processed as a
    /// new image: what a load falls back to when a `304` cannot be used.
    private func downloadWhole(
        _ request: ImageLoadRequest, handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (LoadResult?, LoaderTelemetry.Outcome) {
        let requestTime = Date()
        let (head, data) = try await download(request, request.dataRequest, handle: handle, reservation: reservation)
        if head?.statusCode == 304 { throw ImageError.httpStatus(304) }
        let storage = cachePolicy.storage(
            for: head, request: request.dataRequest, requestTime: requestTime, encodesMetadata: request.cache.keepsEncodedData
        )
        return (try await process(request, data: data, head: head, storage: storage), .network)
    }

    /// ``FetchStage/download(_:_:through:handle:reservation:logger:)`` through
    /// the coalescer of the request's data loader.
    private func download(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (HTTPResponseHead?, Data) {
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
        guard cachePolicy.followsHeaders, let error = error as? ImageError,
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
            response.headSource = .stored(entry.record, validated: validated, staleError: staleError)
            return response
        }
        if case .hit(var response, _) = try await storedLookup(for: request, acceptingStale: true, record: entry.record) {
            response.headSource = .stored(entry.record, validated: validated, staleError: staleError)
            return response
        }
        return nil
    }

    // MARK: Decode, transform, store

    /// Decodes downloaded `data` (``DecodeStage``), then ``complete(_:original:data:head:storage:source:sharedWritten:)``.
    func process(
        _ request: ImageLoadRequest, data: Data, head: HTTPResponseHead?, storage: ResponseStorage, sharedWritten: Bool = false
    ) async throws -> LoadResult {
        let original = request.wantsPixels ? try await decodeStage.decode(data, options: request.decodingOptions) : nil
        return try await complete(request, original: original, data: data, head: head, storage: storage, source: .none, sharedWritten: sharedWritten)
    }

    /// Transforms (``TransformStage``) and stores (``StoreStage``) a decoded
    /// original; `source` says where its data came from (`.none` for the
    /// network). With `.waitStoreCache` a failed disk write is in the
    /// response's ``LoadResult/storeError``; otherwise the cache counts it.
    private func complete(
        _ request: ImageLoadRequest, original: Image?, data: Data, head: HTTPResponseHead?, storage: ResponseStorage,
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
            response.headSource = .stored(record)
        }
        response.storeError = try await storeStage.store(
            request, original: original, image: image, data: data, storage: storage,
            source: source, sharedWritten: sharedWritten, logger: logger(for: request.context)
        )
        return response
    }
}
