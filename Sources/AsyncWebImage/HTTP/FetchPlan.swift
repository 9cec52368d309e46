/// What a load does next, as the loader's ``HTTPCachePolicy`` decides from
/// what the tiers hold (``HTTPCachePolicy/plan(_:cacheOnly:)``) or from why
/// the work runs (a `.refreshCached`, a background revalidation). Every
/// fetch — a first load, a refresh, a background revalidation, a stale
/// entry served when the origin fails — runs through the plan's one path.
enum FetchPlan {
    /// Serve this response without asking the origin; with `revalidate`, a
    /// background revalidation of that record follows (`stale-while-revalidate`).
    case serve(LoadResult, revalidate: HTTPCacheRecord?)
    /// Serve the stored entry though it is stale: the caller forbids the
    /// network (`.fromCacheOnly`) and the response allows serving it stale.
    case serveStale(StaleEntry)
    /// Ask the origin with the entry's validators (a plain request when it
    /// has none); a `304` makes it current again, and where RFC 9111 allows,
    /// an origin that fails is answered with the entry as it is.
    case fetchConditionally(StaleEntry)
    /// Ask the origin for the whole image.
    case fetchWhole
}

extension HTTPCachePolicy {
    /// The plan of a load from what the lookup stages found.
    ///
    /// - Parameter cacheOnly: The caller forbids the network (`.fromCacheOnly`).
    /// - Throws: ``ImageError/cacheMiss`` when the network is forbidden and
    ///   nothing stored may serve.
    func plan(_ search: CacheSearch, cacheOnly: Bool) throws(ImageError) -> FetchPlan {
        if let response = search.response { return .serve(response, revalidate: search.revalidate) }
        if let stale = search.stale {
            guard cacheOnly else { return .fetchConditionally(stale) }
            guard stale.record.freshness.mayServeStale else { throw .cacheMiss }
            return .serveStale(stale)
        }
        if cacheOnly { throw .cacheMiss }
        return .fetchWhole
    }
}
