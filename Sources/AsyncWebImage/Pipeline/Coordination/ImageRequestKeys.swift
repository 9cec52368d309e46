import Foundation

/// The identity of one load and every key derived from it, built in this one
/// place from one resolved request (after the options processor, the merged
/// context and the request modifier), and never spelled elsewhere.
///
/// The identity is the URL after the ``CacheKeyFilter``, plus everything in
/// the request as sent that can change the origin's bytes (the request's
/// ``DataRequest/Variant``: header fields such as `Authorization` and
/// `Cookie`, the cookie engine, TLS and redirect options), plus, for the
/// result keys, the decode options and the transformer. The memory cache,
/// the disk tier's keys, the failed-URL list, the task coalescer and the
/// download coalescer all key on it, so an image loaded with one set of
/// credentials is never served to a request with another set or none.
///
/// A request with every default (no header field, no cookies, default TLS
/// and redirects: ``DataRequest/Variant/plain``) keeps the plain keys of
/// earlier versions — the filtered URL, plus the decode and transform parts —
/// so existing disk caches stay valid and a memory hit builds no string. A
/// request with a variant adds `#variant=` and a SHA-256 digest of it to the
/// cache key: credentials never appear in a key or a file name.
struct ImageRequestKeys: Hashable, Sendable {
    /// What the origin's bytes depend on, for the failed-URL list: the URL as
    /// requested (not filtered: two signed URLs of one image fail apart) and
    /// the request's full variant.
    struct Origin: Hashable, Sendable {
        let url: String
        let variant: DataRequest.Variant
    }

    let origin: Origin
    /// The key of the encoded original in the disk tier: the filtered URL,
    /// plus the cache variant when there is one.
    let dataKey: String
    /// The key of the decoded original in memory: `dataKey` plus the decode options.
    let originalImageKey: String
    /// The key of the final image, in memory (and on disk when transformed):
    /// `originalImageKey` plus the transformer's key.
    let resultKey: String

    /// Resolves the keys of one load.
    ///
    /// - Parameters:
    ///   - url: The URL as the caller gave it.
    ///   - urlString: `url.absoluteString`, when the caller has it already.
    ///   - filter: The effective cache key filter, if any.
    ///   - variant: The variant of the request as sent (``DataRequest/Key/variant``).
    ///   - decodingSuffix: ``ImageDecodingOptions/cacheKeySuffix`` of the load.
    ///   - transformer: The effective transformer, if any.
    ///   - transformsAnimation: `.transformAnimatedImage`: with a transformer,
    ///     an animation's every frame is transformed (the result stays
    ///     animated) instead of the first frame only, so the result key
    ///     says so (`#animated`).
    ///   - varyKey: The secondary key of a stored response's variant
    ///     (``HTTPVary/secondaryKey(names:headers:)``), when the URL's
    ///     responses vary and this load selects another variant than the one
    ///     under the primary keys; appended to the data key.
    init(
        url: URL, urlString: String? = nil, filter: CacheKeyFilter?, variant: DataRequest.Variant,
        decodingSuffix: String, transformer: (any ImageTransformer)?, transformsAnimation: Bool = false, varyKey: String? = nil
    ) {
        let string = urlString ?? url.absoluteString
        origin = Origin(url: string, variant: variant)
        let filtered = filter?.key(for: url) ?? string
        let cacheVariant = filter.map { variant.removingHeaders($0.ignoredHeaders) } ?? variant
        let dataKey = (cacheVariant.isPlain ? filtered : filtered + "#variant=" + cacheVariant.digest) + (varyKey ?? "")
        let originalImageKey = decodingSuffix.isEmpty ? dataKey : dataKey + decodingSuffix
        self.dataKey = dataKey
        self.originalImageKey = originalImageKey
        resultKey = transformer.map { originalImageKey + "#transform=" + $0.key + (transformsAnimation ? "#animated" : "") } ?? originalImageKey
    }

    /// The key of the shared work making this result for `request`.
    func taskKey(request: DataRequest.Key, decodes: Bool, cacheOnly: Bool, revalidates: Bool = false) -> TaskKey {
        TaskKey(resultKey: resultKey, request: request, decodes: decodes, cacheOnly: cacheOnly, revalidates: revalidates)
    }

    /// What identifies the shared work of a load in ``ImageTaskCoalescer``:
    /// two loads with the same key get the same result, so it holds
    /// everything that changes it — the result key, the request as sent
    /// (credentials included), and how the work ends.
    struct TaskKey: Hashable, Sendable {
        let resultKey: String
        let request: DataRequest.Key
        let decodes: Bool
        /// `.fromCacheOnly` work fails with a cache miss where other work
        /// downloads: the two must never be shared.
        let cacheOnly: Bool
        let revalidates: Bool

        /// This key for the revalidation of a cached image (`.refreshCached`).
        var revalidating: TaskKey {
            TaskKey(resultKey: resultKey, request: request, decodes: decodes, cacheOnly: cacheOnly, revalidates: true)
        }
    }
}
