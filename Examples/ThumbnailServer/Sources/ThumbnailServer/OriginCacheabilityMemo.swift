import NIOConcurrencyHelpers

/// What origins last said about caching, by source URL: for a load whose
/// original came from the loader's cache (no head seen). Bounded like every
/// map keyed by client input here (``BoundedLRU``): keys counted, entries capped.
final class OriginCacheabilityMemo: Sendable {
    private let entries: NIOLockedValueBox<BoundedLRU<OriginCacheability>>

    /// A memo of at most `bytes` (keys and bookkeeping counted) in at most `maxCount` entries.
    init(bytes: Int = 4 << 20, maxCount: Int = 16_384) {
        entries = NIOLockedValueBox(BoundedLRU(limit: bytes, maxCount: maxCount))
    }

    /// What the origin of `url` said last, if remembered.
    func value(forURL url: String) -> OriginCacheability? {
        entries.withLockedValue { $0.value(forKey: url) }
    }

    /// Remembers `value` for `url`.
    func remember(_ value: OriginCacheability, forURL url: String) {
        entries.withLockedValue { $0.insert(value, valueBytes: MemoryLayout<OriginCacheability>.size, forKey: url) }
    }
}
