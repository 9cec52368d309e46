import Foundation

extension ImageLoader {
    /// Whether the loader follows cache headers at all.
    var followsHTTPCaching: Bool { configuration.httpCacheMode.followsHeaders }

    /// How the response `head` to `request`, sent at `requestTime` and
    /// arriving now, is kept. Ignoring headers stores every response, with
    /// a record that is always fresh (its head and validators only count).
    func storage(for head: DataResponseHead?, request: ImageLoadRequest, requestTime: Date? = nil) -> ResponseStorage {
        guard let head else { return ResponseStorage() }
        let mode = configuration.httpCacheMode
        let metadata = HTTPCacheMetadata(
            head: head, request: request.dataRequest, requestTime: requestTime, responseTime: Date(), mode: mode
        )
        // The JSON form is what the disk and shared tiers keep beside the
        // bytes: without either (a thumbnail server with every cache off),
        // it is not made for every response.
        let hasLowerTier = request.cache.disk != nil || request.cache.sharedTier != nil
        return ResponseStorage(
            isStorable: metadata.isStorable(mode: mode, request: request.dataRequest),
            record: HTTPCacheRecord(metadata, mode: mode),
            extendedData: hasLowerTier ? metadata.encoded : nil
        )
    }

    /// Whether `.refreshCached` may skip its revalidation: the entry is
    /// `immutable` and still fresh (RFC 8246).
    func isFreshAndImmutable(_ request: ImageLoadRequest) async -> Bool {
        guard followsHTTPCaching else { return false }
        var record = request.cache.memory.entry(forKey: request.keys.resultKey)?.http
        if record == nil, let metadata = await diskStage.storedMetadata(for: request) {
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
        if primary.image != nil, let stored = await diskStage.storedMetadata(for: request), stored.etag == metadata.etag {
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
                    await self.storeStage.storeRefreshed(record.metadata.refreshed(by: head, responseTime: Date(), mode: mode), for: request, mode: mode)
                    return
                }
                _ = try? await self.process(request, data: body, head: head, storage: self.storage(for: head, request: request))
                return
            }
        }
    }
}
