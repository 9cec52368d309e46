import AsyncWebImage
import Foundation
import NIOConcurrencyHelpers

/// Reads the origin's response head during one load, through the loader's
/// response-modifier hook (it changes nothing), and remembers what it said
/// about caching (``OriginCacheability``) for this load and, by source URL,
/// in ``OriginCacheabilityMemo`` for later loads that find the original in
/// the loader's cache and so see no head.
///
/// - Important: Interim: once the loader's response carries the head it
///   used (fresh from the origin or stored with the cached original), that
///   replaces both this hook and the memo.
final class OriginHeadRecorder: ResponseModifying, Sendable {
    private let url: String
    private let memo: OriginCacheabilityMemo
    private let seen = NIOLockedValueBox<OriginCacheability?>(nil)

    /// A recorder for one load of `url`.
    init(url: URL, memo: OriginCacheabilityMemo) {
        self.url = url.absoluteString
        self.memo = memo
    }

    /// What the origin said in this load, if a head was seen.
    var cacheability: OriginCacheability? { seen.withLockedValue { $0 } }

    func modifiedResponse(for head: DataResponseHead) -> DataResponseHead? {
        let now = Date()
        let value: OriginCacheability
        if head.statusCode == 304 {
            // A revalidation: the stored response, refreshed (its own fields
            // when the 304 carries some); unknown when none is remembered.
            if let stored = memo.value(forURL: url) {
                value = stored.refreshed(by: head.headers, responseTime: now)
            } else if head.headers[.cacheControl] != nil || head.headers[.expires] != nil {
                value = OriginCacheability(head: head, responseTime: now)
            } else {
                value = .unknown(at: now)
            }
        } else {
            value = OriginCacheability(head: head, responseTime: now)
        }
        seen.withLockedValue { $0 = value }
        memo.remember(value, forURL: url)
        return head
    }
}

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
