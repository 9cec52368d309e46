extension ImageLoader {
    /// How a loader treats HTTP caching headers (RFC 9111), set with
    /// ``ImageLoader/Configuration/httpCacheMode``.
    ///
    /// Pick ``private`` for an app (one user), ``shared`` for a server whose
    /// cached images serve many users, and ``ignoringHeaders`` to cache every
    /// image whatever its origin says, as SDWebImage does (useful against
    /// origins that send no caching headers at all, whose images the two RFC
    /// modes download again on every load).
    public enum HTTPCacheMode: Sendable, Hashable {
        /// A private cache, for one user (an app), as a browser's: `private`
        /// responses are stored, `s-maxage` does not count. The default.
        ///
        /// RFC 9111 to the letter: a response is stored only when its status is
        /// heuristically cacheable or it has explicit freshness (or `public`,
        /// `private`); it is reused without asking the origin while fresh
        /// (`max-age`, `Expires`, else a tenth of the time since `Last-Modified`,
        /// a week at most); once stale it is revalidated with its validators, or
        /// downloaded again when it has none. A response with neither freshness
        /// nor a validator is therefore never reused without a request.
        case `private`
        /// A shared cache, for a server answering many users: as ``private``,
        /// except that `private` responses (and responses to requests with
        /// `Authorization`, unless the response allows it) are not stored,
        /// `s-maxage` wins over `max-age`, `proxy-revalidate` counts as
        /// `must-revalidate`, and fields named by `private="…"` are not kept.
        case shared
        /// Cache headers are ignored, as SDWebImage does: every response is
        /// stored and served until the tiers' own limits (age, size, cost)
        /// evict it. Validators (and the response head) are still kept, for
        /// `.refreshCached`.
        case ignoringHeaders
    }
}

extension ImageLoader.HTTPCacheMode {
    /// Whether stored records are judged by their headers at all: the one
    /// spelling the loader and its stages share.
    var followsHeaders: Bool { self != .ignoringHeaders }
}
