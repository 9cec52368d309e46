public import Foundation

extension ImageLoader {
    /// Removes from the caches what a load of `url` with these options and
    /// context would find there: its result (a thumbnail or transformed
    /// image), its decoded original, and its downloaded data, from every
    /// tier `cacheType` names — so the next such load downloads it again.
    ///
    /// Nuke's `removeCachedImage(for:)`, Kingfisher's
    /// `removeImage(forKey:)`. ``ImageCache/removeImage(forKey:cacheType:)``
    /// with `url.absoluteString` reaches only a plain load's entries: the
    /// loader keys a load on its URL after the ``CacheKeyFilter``, the header
    /// fields its request modifier sets, its decode options and its
    /// transformer (``CacheKeyFilter`` explains the identity), and this
    /// method derives those keys as the load would. Other results of the
    /// same URL (another thumbnail size, another transformer) keep theirs.
    ///
    /// When the URL's responses vary (`Vary`), the entries of the variant
    /// this request selects go, and the others stay.
    ///
    /// A load already running when this is called may store its result
    /// afterwards; the failed-URL list is not changed (``unblock(_:)``).
    ///
    /// - Parameters:
    ///   - url: The image's URL, as given to ``image(_:options:context:)``.
    ///   - options: The options of the loads to forget (they can change the
    ///     decode options and so the keys).
    ///   - context: The context of the loads to forget.
    ///   - cacheType: The tiers to remove from: ``ImageCacheType/all`` by default.
    /// - Throws: ``ImageError/unsupportedScheme(_:)``, ``ImageError/invalidURL(_:)``,
    ///   what the request modifier throws, or
    ///   ``ImageError/diskIO(path:errno:message:)`` when a disk entry cannot be removed.
    public func removeCachedImage(
        _ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(), cacheType: ImageCacheType = .all
    ) async throws {
        var request = try makeRequest(url, options: options, context: context)
        // The modifier's header fields are part of the identity, as in a load.
        if let modifier = request.context.requestModifier {
            request = request.with(dataRequest: try await modifier.resolvedRequest(for: request.dataRequest))
        }
        var keys = [request.keys]
        // A response that varies keeps each variant under keys of its own
        // (RFC 9111 §4.1), the primary keys holding one of them: this
        // request's variant goes, wherever it is, and no other.
        if followsHTTPCaching {
            var stored = request.cache.memory.entry(forKey: request.keys.resultKey)?.http?.metadata
            if stored == nil { stored = await storedMetadata(for: request) }
            if let stored, !stored.varyNames.isEmpty, !stored.varyNames.contains("*") {
                let variant = request.selectingVariant(varyingOn: stored.varyNames).keys
                keys = stored.matchesVary(request.dataRequest) ? [request.keys, variant] : [variant]
            }
        }
        for key in Set(keys.flatMap { [$0.resultKey, $0.originalImageKey, $0.dataKey] }) {
            try await request.cache.removeImage(forKey: key, cacheType: cacheType)
        }
    }
}
