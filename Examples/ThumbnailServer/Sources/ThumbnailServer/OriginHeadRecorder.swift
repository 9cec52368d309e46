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
final class OriginHeadRecorder: Sendable {
    private let url: String
    private let memo: OriginCacheabilityMemo
    private let seen = NIOLockedValueBox<OriginCacheability?>(nil)

    /// A recorder for one load of `url`.
    init(url: URL, memo: OriginCacheabilityMemo) {
        self.url = url.absoluteString
        self.memo = memo
    }

    /// The loader's response modifier that records the head (and passes it on unchanged).
    var modifier: ResponseModifier { ResponseModifier { [self] head in modifiedResponse(for: head) } }

    /// What the origin said in this load, if a head was seen.
    var cacheability: OriginCacheability? { seen.withLockedValue { $0 } }

    func modifiedResponse(for head: HTTPResponseHead) -> HTTPResponseHead? {
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
