import Foundation

/// The freshness of a stored response (RFC 9111 §4.2), derived from its
/// ``HTTPCacheMetadata`` for one cache mode: until when it may be served
/// without asking the origin, until when it may be served stale while a
/// revalidation runs (`stale-while-revalidate`), and whether it may never
/// be served stale at all.
struct HTTPFreshness: Hashable, Sendable {
    /// Until when the entry is fresh; `nil` when the response gave no
    /// freshness information (no heuristic: the tiers' own age limits
    /// decide), `.distantPast` when it must be revalidated before every use.
    let freshUntil: Date?
    /// Until when a stale entry may be served while it is revalidated in
    /// the background; `nil` when never.
    let staleWhileRevalidateUntil: Date?
    /// `immutable`: not revalidated while fresh, even when asked to refresh.
    let immutable: Bool
    /// Whether the entry may ever be served stale (not with `no-cache`,
    /// `must-revalidate`, nor in a shared cache `proxy-revalidate` or `s-maxage`).
    let mayServeStale: Bool

    /// The freshness of `metadata` in a cache in `mode`; `.ignoringHeaders`
    /// gives an entry that is always fresh.
    init(_ metadata: HTTPCacheMetadata, mode: HTTPCacheMode) {
        guard mode != .ignoringHeaders, let fields = metadata.fields, let responseSeconds = metadata.responseTime else {
            freshUntil = nil
            staleWhileRevalidateUntil = nil
            immutable = false
            mayServeStale = true
            return
        }
        let responseTime = Date(timeIntervalSince1970: responseSeconds)
        let control = CacheControl(fields["cache-control"] ?? "")
        let shared = mode == .shared
        immutable = control.immutable

        // Freshness lifetime (§4.2.1): s-maxage (shared), max-age, Expires − Date.
        var lifetime: Double?
        if shared, let sharedMaxAge = control.sharedMaxAge {
            lifetime = Double(sharedMaxAge)
        } else if let maxAge = control.maxAge {
            lifetime = Double(maxAge)
        } else if let expires = fields["expires"] {
            // An Expires that is not a date means "already expired" (§5.3).
            if let expiresDate = HTTPDate.parse(expires) {
                let base = fields["date"].flatMap { HTTPDate.parse($0) } ?? responseTime
                lifetime = expiresDate.timeIntervalSince(base)
            } else {
                lifetime = 0
            }
        }

        // Current age (§4.2.3) at the response time: the larger of the
        // apparent age (response time − Date) and the Age the response
        // declared. The request time is not kept, so the response delay
        // counts as zero; resident time is added when freshness is checked.
        let apparentAge = fields["date"].flatMap { HTTPDate.parse($0) }.map { max(0, responseTime.timeIntervalSince($0)) } ?? 0
        let declaredAge = fields["age"].flatMap { CacheControl.seconds($0.trimmingSpaces) }.map(Double.init) ?? 0
        let initialAge = max(apparentAge, declaredAge)

        if control.noCache {
            freshUntil = .distantPast
        } else if let lifetime {
            freshUntil = responseTime.addingTimeInterval(lifetime - initialAge)
        } else {
            freshUntil = nil
        }
        mayServeStale = !control.noCache && !control.mustRevalidate
            && !(shared && (control.proxyRevalidate || control.sharedMaxAge != nil))
        if mayServeStale, let freshUntil, let window = control.staleWhileRevalidate {
            staleWhileRevalidateUntil = freshUntil.addingTimeInterval(Double(window))
        } else {
            staleWhileRevalidateUntil = nil
        }
    }

    /// Whether the entry may be served at `now` without asking the origin.
    func isFresh(at now: Date) -> Bool {
        guard let freshUntil else { return true }
        return now < freshUntil
    }

    /// Whether a stale entry may be served at `now` while it is revalidated in the background.
    func mayServeWhileRevalidating(at now: Date) -> Bool {
        guard let staleWhileRevalidateUntil else { return false }
        return now < staleWhileRevalidateUntil
    }
}

/// A stored response's metadata with its freshness in the loader's mode:
/// what a memory entry carries next to its image.
///
/// A class, immutable: a memory hit and every copy of the record pass one
/// reference instead of the metadata's and freshness's fields.
final class HTTPCacheRecord: Sendable {
    let metadata: HTTPCacheMetadata
    let freshness: HTTPFreshness
    /// Whether the response had a `Vary` (looked up once: memory hits ask).
    let hasVary: Bool

    init(_ metadata: HTTPCacheMetadata, mode: HTTPCacheMode) {
        self.metadata = metadata
        freshness = HTTPFreshness(metadata, mode: mode)
        hasVary = metadata.fields?["vary"] != nil
    }

    /// Whether a memory hit may be served as it is, checked with no
    /// allocation when the record has neither an expiry nor a `Vary`
    /// (`request` is built only for a `Vary`).
    func allowsReuse(requestFor request: () -> DataRequest) -> Bool {
        if let freshUntil = freshness.freshUntil, Date() >= freshUntil { return false }
        return !hasVary || metadata.matchesVary(request())
    }

    /// Whether reusing the image depends on this record (an expiry or a
    /// `Vary`), so that it must not be served without it.
    var constrainsReuse: Bool {
        freshness.freshUntil != nil || hasVary
    }
}
