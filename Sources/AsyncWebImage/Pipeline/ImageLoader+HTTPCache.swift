import Foundation

extension ImageLoader {
    /// What a cache tier holds for a load, judged by HTTP freshness.
    enum CacheLookup {
        /// Usable as it is (fresh, or served while a background revalidation runs).
        case hit(LoadResult)
        /// Stored, but it must be revalidated before use.
        case stale(StaleEntry)
        /// Nothing usable (absent, or stored for other `Vary` values).
        case miss
        /// Under the load's primary keys is a response that varies and was
        /// selected by other values of the fields its `Vary` names: this
        /// request's variant, if stored, is under its own keys
        /// (``ImageLoadRequest/selectingVariant(varyingOn:)``), and the
        /// stored one's validators may still name it in a conditional
        /// request (RFC 9111 §4.3.1).
        case otherVariant(StaleEntry)
    }

    /// A stored response that must be revalidated before use.
    struct StaleEntry {
        let record: HTTPCacheRecord
        /// The final image, when the stale entry was found in memory: a
        /// `304` then serves it with no decode.
        let image: Image?
    }

    /// How a response is kept: whether the tiers may store it, the record
    /// memory entries carry, and the extended data of its disk entry.
    struct ResponseStorage {
        var isStorable = true
        var record: HTTPCacheRecord?
        var extendedData: Data?

        /// Storage of an image that came from a cache with `record`.
        static func cached(_ record: HTTPCacheRecord?) -> ResponseStorage {
            ResponseStorage(record: record)
        }
    }

    /// Whether the loader follows cache headers at all.
    var followsHTTPCaching: Bool { configuration.httpCacheMode != .ignoringHeaders }

    /// How the response `head` to `request`, sent at `requestTime` and
    /// arriving now, is kept. Ignoring headers stores every response, with
    /// a record that is always fresh (its head and validators only count).
    func storage(for head: DataResponseHead?, request: ImageLoadRequest, requestTime: Date? = nil) -> ResponseStorage {
        guard let head else { return ResponseStorage() }
        let mode = configuration.httpCacheMode
        let metadata = HTTPCacheMetadata(
            head: head, request: request.dataRequest, requestTime: requestTime, responseTime: Date(), mode: mode
        )
        return ResponseStorage(
            isStorable: metadata.isStorable(mode: mode, request: request.dataRequest),
            record: HTTPCacheRecord(metadata, mode: mode),
            extendedData: metadata.encoded
        )
    }

    /// Whether a memory entry with `record` may serve `request` now without
    /// asking the origin: no record (or headers ignored), or fresh and for
    /// the same `Vary` values.
    func isUsableWithoutRevalidation(_ record: HTTPCacheRecord?, for request: DataRequest) -> Bool {
        guard let record, followsHTTPCaching else { return true }
        return record.metadata.matchesVary(request) && record.reuse(for: request, at: Date()) == .fresh
    }

    /// The final image in memory under the result key, judged by the HTTP
    /// record it was stored with.
    ///
    /// - Parameter acceptingStale: Serve a stale entry as a hit
    ///   (`.refreshCached`, which revalidates anyway).
    func memoryLookup(for request: ImageLoadRequest, acceptingStale: Bool = false) async throws -> CacheLookup {
        guard request.wantsPixels, request.queryCacheType.includesMemory,
              let entry = request.cache.memory.entry(forKey: request.keys.resultKey) else { return .miss }
        let image = entry.image
        if let record = entry.http, followsHTTPCaching {
            guard record.metadata.matchesVary(request.dataRequest) else {
                return request.varyKey == nil ? .otherVariant(StaleEntry(record: record, image: image)) : .miss
            }
            if !acceptingStale {
                switch record.reuse(for: request.dataRequest, at: Date()) {
                case .fresh: break
                case .staleWhileRevalidate: revalidateInBackground(request, record: record)
                case .stale: return .stale(StaleEntry(record: record, image: image))
                }
            }
        }
        var data: Data?
        if request.options.contains(.queryMemoryData), let disk = request.cache.disk {
            data = try? await disk.data(forKey: request.transformer == nil ? request.keys.dataKey : request.keys.resultKey)
        }
        var response = LoadResult(image: image, data: data, cacheType: .memory, url: request.url)
        response.headSource = entry.http.map { .stored($0, tier: .memory) }
        return .hit(response)
    }

    /// The HTTP metadata stored with the data entry of `request` (disk first,
    /// then the shared tier); `nil` when there is none or it is unreadable.
    func storedMetadata(for request: ImageLoadRequest) async -> HTTPCacheMetadata? {
        let key = request.keys.dataKey
        if let disk = request.cache.disk, let data = try? await disk.extendedData(forKey: key) {
            return HTTPCacheMetadata(encoded: data)
        }
        guard let shared = request.cache.sharedTier, let data = try? await shared.extendedData(forKey: key) else { return nil }
        return HTTPCacheMetadata(encoded: data)
    }

    /// After a `304 Not Modified`: the refreshed metadata goes to the disk
    /// entry and to the memory entries of the load, keeping their bytes and images.
    func storeRefreshed(_ metadata: HTTPCacheMetadata, for request: ImageLoadRequest) async {
        let cache = request.cache
        let keys = request.keys
        if cache.disk != nil || cache.sharedTier != nil, let encoded = metadata.encoded {
            if let disk = cache.disk { _ = try? await disk.setExtendedData(encoded, forKey: keys.dataKey) }
            if let shared = cache.sharedTier { _ = try? await shared.setExtendedData(encoded, forKey: keys.dataKey) }
        }
        let record = HTTPCacheRecord(metadata, mode: configuration.httpCacheMode)
        await cache.memory.setHTTPRecord(record, forKey: keys.resultKey)
        if keys.originalImageKey != keys.resultKey {
            await cache.memory.setHTTPRecord(record, forKey: keys.originalImageKey)
        }
    }

    /// Whether `.refreshCached` may skip its revalidation: the entry is
    /// `immutable` and still fresh (RFC 8246).
    func isFreshAndImmutable(_ request: ImageLoadRequest) async -> Bool {
        guard followsHTTPCaching else { return false }
        var record = request.cache.memory.entry(forKey: request.keys.resultKey)?.http
        if record == nil, let metadata = await storedMetadata(for: request) {
            record = HTTPCacheRecord(metadata, mode: configuration.httpCacheMode)
        }
        guard let record else { return false }
        return record.freshness.immutable && record.freshness.freshUntil != nil && record.freshness.isFresh(at: Date())
    }

    /// A stored response of the URL that a conditional request for another
    /// variant names (RFC 9111 §4.3.1), and where its body is.
    struct VariantCandidate {
        let etag: String
        /// The data key of its entry.
        let dataKey: String
        let metadata: HTTPCacheMetadata?
        /// Its image, when it is the primary entry found in memory.
        let image: Image?
    }

    /// The stored responses a conditional request for another variant of
    /// `primary` (the entry under the primary keys of `request`) names: the
    /// primary itself and the variants its metadata on disk lists (a memory
    /// entry's record does not follow that list).
    func variantCandidates(of primary: StaleEntry, for request: ImageLoadRequest) async -> [VariantCandidate] {
        guard followsHTTPCaching else { return [] }
        let primaryDataKey = request.keys.dataKey
        var metadata = primary.record.metadata
        if primary.image != nil, let stored = await storedMetadata(for: request), stored.etag == metadata.etag {
            metadata.variants = stored.variants
        }
        return metadata.storedTags.map { tag in
            guard let secondaryKey = tag.secondaryKey else {
                return VariantCandidate(etag: tag.etag, dataKey: primaryDataKey, metadata: primary.record.metadata, image: primary.image)
            }
            return VariantCandidate(etag: tag.etag, dataKey: primaryDataKey + secondaryKey, metadata: nil, image: nil)
        }
    }

    /// After a `304` to a conditional request that named the stored variants
    /// `candidates`: the one its `ETag` selects (§4.3.4), served for
    /// `request` and stored under `request`'s variant keys with the 304's
    /// fields and the request's `Vary` values; nil when the 304 selects none
    /// or its body is gone (the caller then downloads the image whole).
    func serveSelectedVariant(
        _ request: ImageLoadRequest, among candidates: [VariantCandidate], notModified head: DataResponseHead, requestTime: Date
    ) async throws -> LoadResult? {
        guard let received = HTTPCacheMetadata.value(of: .eTag, in: head),
              let candidate = candidates.first(where: { EntityTag.matches(received, $0.etag, weakly: true) }) else { return nil }
        let entry = try? await request.cache.readEntry(forKey: candidate.dataKey, includeExtendedData: candidate.metadata == nil)
        guard let data = entry?.data,
              let metadata = candidate.metadata ?? entry?.extendedData.flatMap(HTTPCacheMetadata.init(encoded:)) else { return nil }
        let mode = configuration.httpCacheMode
        let selected = metadata.refreshed(by: head, requestTime: requestTime, responseTime: Date(), mode: mode).selected(for: request.dataRequest)
        let storage = ResponseStorage(
            isStorable: selected.isStorable(mode: mode, request: request.dataRequest),
            record: HTTPCacheRecord(selected, mode: mode), extendedData: selected.encoded
        )
        var response = try await process(request, data: data, head: nil, storage: storage)
        if let record = storage.record { response.headSource = .stored(record, tier: .disk, validated: true) }
        return response
    }

    /// Lists the variant `request` just stored (its secondary key and
    /// `etag`) in the metadata of the URL's primary entry on disk, so that a
    /// conditional request for yet another variant can name it (§4.3.1).
    func listStoredVariant(_ request: ImageLoadRequest, primaryDataKey: String, etag: String) async {
        guard followsHTTPCaching, let varyKey = request.varyKey, let disk = request.cache.disk,
              let data = try? await disk.extendedData(forKey: primaryDataKey),
              let primary = HTTPCacheMetadata(encoded: data),
              let encoded = primary.listing(.init(secondaryKey: varyKey, etag: etag)).encoded else { return }
        _ = try? await disk.setExtendedData(encoded, forKey: primaryDataKey)
    }

    /// Revalidates a stale entry that was just served
    /// (`stale-while-revalidate`), in the background: one conditional
    /// request; a `304` refreshes the stored metadata, a new image replaces
    /// the entry. At most one per entry and a few per loader at a time
    /// (``BackgroundRevalidations``); the work holds the loader weakly and
    /// is cancelled when the loader goes.
    func revalidateInBackground(_ request: ImageLoadRequest, record: HTTPCacheRecord) {
        var conditional = request.dataRequest
        record.metadata.validators?.apply(to: &conditional)
        conditional.priority = .low
        conditional.retryPolicy = request.context.retryPolicy
        let dataRequest = conditional
        let coalescer = downloadCoalescer(for: request.context.dataLoader)
        let modifiers = DownloadModifiers(responseModifier: request.context.responseModifier, decryptor: request.context.decryptor)
        var whole = request.dataRequest
        whole.priority = .low
        whole.retryPolicy = request.context.retryPolicy
        let wholeRequest = whole
        backgroundRevalidations.start(key: request.keys.dataKey) { [weak self] in
            // The conditional request first; a 304 for another representation
            // (§4.3.4) refreshes nothing and is followed by the request without
            // validators, once.
            for attempt in [dataRequest, wholeRequest] {
                var head: DataResponseHead?
                var body: Data?
                do {
                    for try await event in coalescer.download(attempt, modifiers: modifiers) {
                        switch event {
                        case .head(let received): head = received
                        case .completed(let data): body = data
                        case .progress, .chunk: break
                        }
                    }
                } catch {
                    // A failed revalidation leaves the stale entry to expire; the
                    // next load after the window revalidates in the foreground.
                    return
                }
                guard let self, let head, let body, !Task.isCancelled else { return }
                if head.statusCode == 304 {
                    guard record.metadata.isSelected(by: head) else { continue }
                    let mode = self.configuration.httpCacheMode
                    await self.storeRefreshed(record.metadata.refreshed(by: head, responseTime: Date(), mode: mode), for: request)
                    return
                }
                _ = try? await self.process(request, data: body, head: head, storage: self.storage(for: head, request: request))
                return
            }
        }
    }
}
