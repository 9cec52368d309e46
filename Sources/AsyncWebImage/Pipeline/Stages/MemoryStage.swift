import Foundation

/// The first stage of a load: the final image in memory under the
/// request's result key, judged by the HTTP record it was stored with.
/// A read of the memory cache's lock-guarded table: no decode, no I/O
/// (but for `.queryMemoryData`, which reads the entry's bytes from disk).
struct MemoryStage: Sendable {
    let policy: HTTPCachePolicy

    /// Whether stored records are judged at all (not under `.ignoringHeaders`).
    var followsHTTPCaching: Bool { policy.followsHeaders }

    /// The final image of `request` in memory.
    ///
    /// - Parameter acceptingStale: Serve a stale entry as a hit
    ///   (`.refreshCached`, which revalidates anyway).
    func lookup(_ request: ImageLoadRequest, acceptingStale: Bool = false) async -> CacheLookup {
        guard request.wantsPixels, request.queryCacheType.includesMemory,
              let entry = request.cache.memory.entry(forKey: request.keys.resultKey) else { return .miss }
        let image = entry.image
        var revalidate: HTTPCacheRecord?
        if let record = entry.http, followsHTTPCaching {
            switch StoredVerdict(record, for: request, acceptingStale: acceptingStale) {
            case .usable(let inBackground): if inBackground { revalidate = record }
            case .stale: return .stale(StaleEntry(record: record, image: image))
            case .otherVariant: return .otherVariant(StaleEntry(record: record, image: image))
            case .miss: return .miss
            }
        }
        var data: Data?
        if request.options.contains(.queryMemoryData), let disk = request.cache.disk {
            data = try? await disk.data(forKey: request.transformer == nil ? request.keys.dataKey : request.keys.resultKey)
        }
        var response = LoadResult(image: image, data: data, cacheType: .memory, url: request.url)
        response.headSource = entry.http.map { .stored($0) }
        return .hit(response, revalidate: revalidate)
    }

    /// The decoded original of `request` in memory (kept when a transformer
    /// runs, so another transform of it skips the download and the decode),
    /// when it may serve without asking the origin — or whatever its record,
    /// when the caller has just validated it (`known`). With the record it
    /// was stored with.
    func original(of request: ImageLoadRequest, validated known: HTTPCacheRecord?) -> (image: Image, record: HTTPCacheRecord?)? {
        guard request.wantsPixels, request.transformer != nil, request.queryCacheType.includesMemory,
              let original = request.cache.memory.entry(forKey: request.keys.originalImageKey),
              known != nil || isUsableWithoutRevalidation(original.http, for: request.dataRequest) else { return nil }
        return (original.image, known ?? original.http)
    }

    /// Whether a memory entry with `record` may serve `request` now without
    /// asking the origin: no record (or headers ignored), or fresh and for
    /// the same `Vary` values.
    func isUsableWithoutRevalidation(_ record: HTTPCacheRecord?, for request: DataRequest) -> Bool {
        guard let record, followsHTTPCaching else { return true }
        return record.metadata.matchesVary(request) && record.reuse(for: request, at: Date()) == .fresh
    }
}
