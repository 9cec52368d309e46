import HTTPTypes

/// The directives of a request's `Cache-Control` (RFC 9111 §5.2.1) that
/// the loader acts on: a caller's request modifier can send them, and the
/// loader's caches honour them as any cache on the way would.
///
/// `Pragma` is not read: RFC 9111 §5.4 deprecates it, and a request with
/// `Pragma: no-cache` but no `Cache-Control` is answered from a fresh
/// stored response (the origin still sees the field when the loader asks it).
struct RequestCacheControl: Hashable, Sendable {
    /// `max-age`: the oldest response the client accepts, in seconds.
    var maxAge: Int?
    /// `max-stale`: how stale a response the client accepts (`.max` without an argument).
    var maxStale: Int?
    /// `min-fresh`: how long the response must stay fresh, in seconds.
    var minFresh: Int?
    /// `no-cache`: no stored response without validation.
    var noCache = false
    /// `no-store`: neither the request nor its response is stored.
    var noStore = false

    /// The directives of `headers`; nil when it has no `Cache-Control`
    /// (the common case, decided without parsing).
    init?(_ headers: HTTPFields) {
        guard let value = headers[.cacheControl] else { return nil }
        let list = CacheDirectiveList(value)
        // A malformed argument makes a directive count as absent, except
        // where that would loosen what the client asked: a malformed max-age
        // asks for a response of age 0 (validation).
        if let directive = list.first("max-age") { maxAge = CacheDirectiveList.deltaSeconds(directive.argument) ?? 0 }
        if let directive = list.first("max-stale") {
            maxStale = directive.argument == nil ? .max : CacheDirectiveList.deltaSeconds(directive.argument)
        }
        if let directive = list.first("min-fresh") { minFresh = CacheDirectiveList.deltaSeconds(directive.argument) }
        noCache = list.contains("no-cache")
        noStore = list.contains("no-store")
    }
}
