/// How a loader treats HTTP caching headers (RFC 9111), set with
/// ``ImageLoader/Configuration/httpCacheMode``.
public enum HTTPCacheMode: Sendable, Hashable {
    /// A private cache, for one user (an app): `private` responses are
    /// stored, `s-maxage` does not count. The default.
    case `private`
    /// A shared cache, for a server answering many users: `private`
    /// responses (and responses to requests with `Authorization`, unless the
    /// response allows it) are not stored, `s-maxage` wins over `max-age`,
    /// and `proxy-revalidate` counts as `must-revalidate`.
    case shared
    /// Cache headers are ignored, as SDWebImage does: every response is
    /// stored and served until the tiers' own limits (age, size, cost)
    /// evict it. Validators are still kept for `.refreshCached`.
    case ignoringHeaders
}
