/// What the tiers hold for a load, from the lookup stages: memory, then disk
/// and the shared tier, under the primary keys and then (when they hold
/// another variant of a `Vary` response) under this request's variant keys.
/// The input of ``HTTPCachePolicy/plan(_:cacheOnly:)``.
struct CacheSearch {
    /// A usable response, when one was found.
    var response: LoadResult?
    /// The record of a response served while stale, to revalidate in the
    /// background (`stale-while-revalidate`).
    var revalidate: HTTPCacheRecord?
    /// An entry that must be revalidated before use.
    var stale: StaleEntry?
    /// The request whose keys found it: a variant's, after a switch.
    var request: ImageLoadRequest
    /// The other variant stored under the primary keys, if one was found.
    var otherVariant: StaleEntry?
}
