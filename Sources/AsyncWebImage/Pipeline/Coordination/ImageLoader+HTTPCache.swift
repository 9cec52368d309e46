import Foundation

extension ImageLoader {
    /// Whether the loader follows cache headers at all.
    var followsHTTPCaching: Bool { cachePolicy.followsHeaders }

    /// Whether `.refreshCached` may skip its revalidation: the entry is
    /// `immutable` and still fresh (RFC 8246).
    func isFreshAndImmutable(_ request: ImageLoadRequest) async -> Bool {
        guard followsHTTPCaching else { return false }
        var record = request.cache.memory.entry(forKey: request.keys.resultKey)?.http
        if record == nil, let metadata = await diskStage.storedMetadata(for: request) {
            record = cachePolicy.record(metadata)
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
        _ request: ImageLoadRequest, among candidates: [VariantCandidate], notModified head: HTTPResponseHead, requestTime: Date
    ) async throws -> LoadResult? {
        guard let received = HTTPCacheMetadata.value(of: .eTag, in: head),
              let candidate = candidates.first(where: { EntityTag.matches(received, $0.etag, weakly: true) }) else { return nil }
        let entry = try? await request.cache.readEntry(forKey: candidate.dataKey, includeExtendedData: candidate.metadata == nil)
        guard let data = entry?.data,
              let metadata = candidate.metadata ?? entry?.extendedData.flatMap(HTTPCacheMetadata.init(encoded:)) else { return nil }
        let selected = metadata.refreshed(by: head, requestTime: requestTime, responseTime: Date(), mode: cachePolicy.mode)
            .selected(for: request.dataRequest)
        let storage = cachePolicy.storage(of: selected, request: request.dataRequest)
        var response = try await process(request, data: data, head: nil, storage: storage)
        if let record = storage.record { response.headSource = .stored(record, validated: true) }
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
    /// (`stale-while-revalidate`), in the background: the same shared work
    /// as a `.refreshCached` of the request (``Work/revalidation(known:)``:
    /// one conditional request through the fetch stage, with the body
    /// budget, the span, the trace context, the fleet lease and coalescing
    /// with a refresh of the same image), at low priority; a `304`
    /// refreshes the stored metadata, a new image replaces the entry. At
    /// most one per entry and a few per loader at a time
    /// (``BackgroundRevalidations``), all cancelled when the loader goes.
    func revalidateInBackground(_ request: ImageLoadRequest, record: HTTPCacheRecord) {
        let key = request.taskKey.revalidating
        backgroundRevalidations.start(key: request.keys.dataKey) { [weak self] in
            guard let self else { return }
            let channel = ImageEventChannel()
            defer { channel.terminate() }
            self.tasks.subscribe(key, channel: channel, wantsPreviews: false, wantsProgress: false) { [weak self] handle in
                guard let self else { return handle.finish(.failure(CancellationError())) }
                await self.run(request, work: .revalidation(known: record), handle: handle)
            }
            // The work's end: the refreshed entry is stored by then. A failure
            // leaves the stale entry to expire; the next load after the window
            // revalidates in the foreground.
            do { while try await channel.next() != nil {} } catch {}
        }
    }
}
