import Foundation
import HTTPTypes

/// A stored response's metadata with its freshness under the loader's policy:
/// what a memory entry carries next to its image.
///
/// A class, immutable: a memory hit and every copy of the record pass one
/// reference instead of the metadata's and freshness's fields.
final class HTTPCacheRecord: Sendable {
    let metadata: HTTPCacheMetadata
    let freshness: HTTPFreshness
    /// Whether the response had a `Vary` (looked up once: memory hits ask).
    let hasVary: Bool

    init(_ metadata: HTTPCacheMetadata, policy: HTTPCachePolicy) {
        self.metadata = metadata
        freshness = HTTPFreshness(metadata, policy: policy)
        hasVary = policy.followsHeaders && metadata.fields?["vary"] != nil
    }

    /// Whether a memory hit may be served as it is, checked with no
    /// allocation when the record has neither an expiry nor a `Vary`
    /// (`request` is built only for a `Vary`).
    func allowsReuse(requestFor request: () -> DataRequest) -> Bool {
        if let freshUntil = freshness.freshUntil, Date() >= freshUntil { return false }
        return !hasVary || metadata.matchesVary(request())
    }

    /// How the stored response may serve a request.
    enum Reuse: Equatable, Sendable {
        /// As it is, without asking the origin.
        case fresh
        /// At once, while a background revalidation runs (`stale-while-revalidate`).
        case staleWhileRevalidate
        /// Not without asking the origin.
        case stale
    }

    /// How the stored response may serve `request` at `now`: by its
    /// freshness (RFC 9111 §4.2), narrowed or widened by the request's own
    /// `Cache-Control` (§5.2.1): `no-cache` and a `max-age` it is older than
    /// send it to the origin, `min-fresh` asks for a margin of freshness,
    /// `max-stale` accepts a stale response (not one that forbids it).
    /// `Vary` is not checked here (``HTTPCacheMetadata/matchesVary(_:)``).
    func reuse(for request: DataRequest, at now: Date) -> Reuse {
        guard let lifetime = freshness.lifetime else { return .fresh }
        if let directives = RequestCacheControl(request.headers) {
            if directives.noCache { return .stale }
            let age = freshness.currentAge(at: now)
            if let maxAge = directives.maxAge, age > Double(maxAge) { return .stale }
            if freshness.isFresh(at: now) {
                if let minFresh = directives.minFresh, lifetime - age < Double(minFresh) { return .stale }
                return .fresh
            }
            if let maxStale = directives.maxStale, freshness.mayServeStale, age - lifetime <= Double(maxStale) {
                return .fresh
            }
        } else if freshness.isFresh(at: now) {
            return .fresh
        }
        return freshness.mayServeWhileRevalidating(at: now) ? .staleWhileRevalidate : .stale
    }

    /// Whether reusing the image depends on this record (an expiry or a
    /// `Vary`), so that it must not be served without it.
    var constrainsReuse: Bool {
        freshness.freshUntil != nil || hasVary
    }

    /// The head the cache returns with the stored response of `url` at `now`.
    ///
    /// - Parameters:
    ///   - url: The URL the load asked for.
    ///   - now: The time it is served.
    ///   - validated: The origin confirmed it for this load (a 304): no `Age`
    ///     is added then (§5.1: `Age` means not validated for this request).
    func responseHead(url: URL, at now: Date, validated: Bool = false) -> HTTPResponseHead {
        var headers = metadata.storedHeaders.httpFields
        let age = freshness.currentAge(at: now)
        if !validated, freshness.lifetime != nil {
            headers[.age] = HTTPAge.fieldValue(age)
        }
        var head = HTTPResponseHead(statusCode: metadata.statusCode, headers: headers, expectedContentLength: nil, url: url)
        head.age = Int(min(max(0, age), 2_147_483_648).rounded(.down))
        return head
    }
}
