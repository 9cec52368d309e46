extension ImageLoader {
    /// How a loader treats HTTP caching headers (RFC 9111), set with
    /// ``ImageLoader/Configuration/httpCacheMode``.
    ///
    /// | mode | for | a response that says nothing about freshness |
    /// |---|---|---|
    /// | ``private`` (default) | an app: one user | fresh for ``ImageLoader/Configuration/defaultFreshnessLifetime`` (a week), then revalidated |
    /// | ``shared`` | a server whose images serve many users | the same |
    /// | ``strictPrivate`` | a browser's HTTP cache, to the letter | asked for again on every load |
    /// | ``strictShared`` | a proxy's HTTP cache, to the letter | asked for again on every load |
    /// | ``ignoringHeaders`` | SDWebImage with HTTP caching off | kept until a tier evicts it; so is everything else |
    ///
    /// In every mode but ``ignoringHeaders`` what the origin says wins:
    /// `no-store` is never stored, `no-cache`, `max-age=0` and
    /// `must-revalidate` are revalidated, `max-age` and `Expires` set the
    /// lifetime, `Vary` keeps a response per variant. The two image-loader
    /// modes differ from the strict ones only where the origin is silent:
    /// RFC 9111 §4.2.2 lets a cache give such a response a heuristic
    /// lifetime, and an image loader gives it its own, as SDWebImage
    /// (`maxDiskAge`), Kingfisher and Nuke do.
    public enum HTTPCacheMode: Sendable, Hashable {
        /// A cache for one user (an app), and the default: RFC 9111's private
        /// cache (`private` responses are stored, `s-maxage` does not count),
        /// except that a response with no explicit freshness (no `max-age`,
        /// `Expires`, `no-cache` or `must-revalidate`) is fresh for
        /// ``ImageLoader/Configuration/defaultFreshnessLifetime`` — in memory,
        /// on disk and in the shared tier — and revalidated with its
        /// validators after that. So the second load of an image is a cache
        /// hit whatever the origin sends, unless it says otherwise.
        case `private`
        /// A cache whose images serve many users (a server, a thumbnail
        /// proxy): ``private``, with the rules of RFC 9111's shared cache —
        /// `private` responses (and responses to requests with
        /// `Authorization`, unless the response allows it) are not stored,
        /// `s-maxage` wins over `max-age`, `proxy-revalidate` counts as
        /// `must-revalidate`, and fields named by `private="…"` are not kept.
        case shared
        /// RFC 9111's private cache to the letter, as a browser's HTTP cache
        /// (and as the cache-tests suite scores browsers): a response is
        /// reused without asking the origin only while its explicit
        /// freshness, or a tenth of the time since its `Last-Modified` (a
        /// week at most), lasts. A response with neither is stored but never
        /// reused without a request: with its validators when it has any,
        /// else downloaded again.
        case strictPrivate
        /// RFC 9111's shared cache to the letter, as a proxy's (and as the
        /// cache-tests suite scores shared caches): ``strictPrivate`` with
        /// the rules of ``shared``.
        case strictShared
        /// Cache headers are ignored, as SDWebImage does without its HTTP
        /// cache: every response is stored (`no-store` too) and served until
        /// the tiers' own limits (age, size, cost) evict it, never
        /// revalidated unless asked (`.refreshCached`). Validators and the
        /// response head are still kept, for `.refreshCached`.
        case ignoringHeaders
    }
}

extension ImageLoader.HTTPCacheMode {
    /// Whether stored records are judged by their headers at all: the one
    /// spelling the loader and its stages share.
    var followsHeaders: Bool { self != .ignoringHeaders }

    /// Whether the cache's entries serve many users (RFC 9111's shared cache).
    var isShared: Bool { self == .shared || self == .strictShared }

    /// Whether a response that says nothing about its freshness gets the
    /// configuration's lifetime (the image-loader modes) rather than RFC
    /// 9111's `Last-Modified` heuristic or none (the strict modes).
    var givesDefaultLifetime: Bool { self == .private || self == .shared }
}
