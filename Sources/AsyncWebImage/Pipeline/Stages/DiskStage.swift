import Foundation
import Logging

/// The stored-bytes stage: the request's entries on disk (or in the shared
/// tier, which fills the disk), judged by the HTTP metadata stored with the
/// original's bytes and decoded by the ``DecodeStage``. The transformed
/// entry first (no transform to run), then the original's bytes.
struct DiskStage: Sendable {
    /// What the tiers hold for a load.
    enum Found {
        /// The final image, decoded from the transformed entry.
        case result(Image, data: Data, record: HTTPCacheRecord?, revalidate: Bool, fromSharedTier: Bool)
        /// The original's bytes, decoded when the load wants pixels; the
        /// transform and the store are still to run.
        case original(Image?, data: Data, record: HTTPCacheRecord?, revalidate: Bool, fromSharedTier: Bool)
        /// Stored, but it must be revalidated before use.
        case stale(StaleEntry)
        /// Stored for other `Vary` values (``CacheLookup/otherVariant(_:)``).
        case otherVariant(StaleEntry)
        /// Nothing stored, or nothing that decodes.
        case miss
    }

    let policy: HTTPCachePolicy
    let decode: DecodeStage
    /// The loader's limits alone: how an already transformed entry decodes.
    let decodeLimits: ImageDecodingOptions

    var followsHTTPCaching: Bool { policy.followsHeaders }

    /// What the tiers hold for `request`.
    ///
    /// - Parameters:
    ///   - acceptingStale: Take a stale entry as found (`revalidate` false).
    ///   - known: The record to judge and store with, when the caller has
    ///     it already (a 304 just refreshed it); read from the tier otherwise.
    func lookup(_ request: ImageLoadRequest, acceptingStale: Bool = false, record known: HTTPCacheRecord? = nil, logger: Logger) async throws -> Found {
        let cache = request.cache
        guard request.queryCacheType.includesDisk, cache.disk != nil || cache.sharedTier != nil else { return .miss }
        var record = known
        var revalidate = false
        if record == nil, let metadata = await storedMetadata(for: request) {
            let found = policy.record(metadata)
            if followsHTTPCaching {
                switch StoredVerdict(found, for: request, acceptingStale: acceptingStale) {
                case .usable(let inBackground): revalidate = inBackground
                case .stale: return .stale(StaleEntry(record: found, image: nil))
                case .otherVariant: return .otherVariant(StaleEntry(record: found, image: nil))
                case .miss: return .miss
                }
            }
            record = found
        }
        let keys = request.keys
        if request.wantsPixels, request.transformer != nil {
            // Already transformed: decode as stored, with the limits but no
            // resizing. Whatever goes wrong, the original below can still serve.
            if let entry = try? await decode.decodeStored(
                forKey: keys.resultKey, in: cache, options: decodeLimits, readErrorsAreMisses: true, logger: logger
            ) {
                return .result(entry.image, data: entry.data, record: record, revalidate: revalidate, fromSharedTier: entry.fromSharedTier)
            }
        }
        try Task.checkCancellation()
        if request.wantsPixels {
            guard let entry = try await decode.decodeStored(
                forKey: keys.dataKey, in: cache, options: request.decodingOptions, readErrorsAreMisses: true, logger: logger
            ) else { return .miss }
            return .original(entry.image, data: entry.data, record: record, revalidate: revalidate, fromSharedTier: entry.fromSharedTier)
        }
        guard let entry = try await cache.readEntry(forKey: keys.dataKey, readErrorsAreMisses: true) else { return .miss }
        return .original(nil, data: entry.data, record: record, revalidate: revalidate, fromSharedTier: entry.fromSharedTier)
    }

    /// The HTTP metadata stored with the original's bytes (disk first, then
    /// the shared tier); `nil` when there is none or it is unreadable.
    func storedMetadata(for request: ImageLoadRequest) async -> HTTPCacheMetadata? {
        let key = request.keys.dataKey
        if let disk = request.cache.disk, let data = try? await disk.extendedData(forKey: key) {
            return HTTPCacheMetadata(encoded: data)
        }
        return await sharedMetadata(for: request)
    }

    /// The HTTP metadata of the original's entry in the shared tier alone:
    /// what another server of the fleet left there (a revalidation of its own).
    func sharedMetadata(for request: ImageLoadRequest) async -> HTTPCacheMetadata? {
        guard let shared = request.cache.sharedTier, let data = try? await shared.extendedData(forKey: request.keys.dataKey) else { return nil }
        return HTTPCacheMetadata(encoded: data)
    }

    /// The original's stored bytes with their HTTP metadata, undecoded and
    /// judged by nothing (disk, else the shared tier): what a `.refreshCached`
    /// revalidates. Nil when the request does not read the disk tiers or
    /// nothing is stored; unreadable entries are misses.
    func storedOriginal(for request: ImageLoadRequest) async -> (data: Data, metadata: HTTPCacheMetadata?)? {
        guard request.queryCacheType.includesDisk,
              let entry = try? await request.cache.readEntry(forKey: request.keys.dataKey, includeExtendedData: true, readErrorsAreMisses: true)
        else { return nil }
        return (entry.data, entry.extendedData.flatMap(HTTPCacheMetadata.init(encoded:)))
    }
}
