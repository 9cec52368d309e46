import Foundation

extension ImageLoader {
    /// Removes from the caches what a load of `request` would find there:
    /// its result (a thumbnail or transformed image), its decoded original,
    /// and its downloaded data, from every tier `cacheType` names — so the
    /// next such load downloads it again.
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
    /// A load already running when this is called may store its result
    /// afterwards; the failed-URL list is not changed (``unblock(_:)``).
    ///
    /// - Parameters:
    ///   - request: The request whose entries to forget.
    ///   - cacheType: The tiers to remove from: ``ImageCacheType/all`` by default.
    /// - Throws: ``ImageError/unsupportedScheme(_:)``, ``ImageError/invalidURL(_:)``,
    ///   what the request modifier throws, or
    ///   ``ImageError/diskIO(path:errno:message:)`` when a disk entry cannot be removed.
    public func removeCachedImage(for request: ImageRequest, from cacheType: ImageCacheType = .all) async throws {
        let resolved = try await resolvedKeys(of: request)
        var keys = [resolved.keys]
        // A response that varies keeps each variant under keys of its own
        // (RFC 9111 §4.1), the primary keys holding one of them: this
        // request's variant goes, wherever it is, and no other.
        if followsHTTPCaching {
            var stored = resolved.cache.memory.entry(forKey: resolved.keys.resultKey)?.http?.metadata
            if stored == nil { stored = await diskStage.storedMetadata(for: resolved) }
            if let stored, !stored.varyNames.isEmpty, !stored.varyNames.contains("*") {
                let variant = resolved.selectingVariant(varyingOn: stored.varyNames).keys
                keys = stored.matchesVary(resolved.dataRequest) ? [resolved.keys, variant] : [variant]
            }
        }
        for key in Set(keys.flatMap { [$0.resultKey, $0.originalImageKey, $0.dataKey] }) {
            try await resolved.cache.removeImage(forKey: key, cacheType: cacheType)
        }
    }

    /// Where the final image of `request` is cached now, without loading,
    /// reading or decoding anything: ``ImageCacheType/memory`` when its
    /// result is in memory, ``ImageCacheType/disk`` when the disk or shared
    /// tier holds its result or its original data (a load then decodes
    /// instead of downloading), ``ImageCacheType/none`` otherwise.
    ///
    /// It looks under the keys a load of `request` would use (after the
    /// request modifier) and does not judge HTTP freshness: a stale entry
    /// counts, though a load may revalidate it first.
    ///
    /// - Throws: ``ImageError/unsupportedScheme(_:)``, ``ImageError/invalidURL(_:)``,
    ///   or what the request modifier throws.
    public func cachedTier(of request: ImageRequest) async throws -> ImageCacheType {
        let resolved = try await resolvedKeys(of: request)
        let query = resolved.context.queryCacheType
        let memory = resolved.cache.memory
        if query.includesMemory, memory.entry(forKey: resolved.keys.resultKey) != nil { return .memory }
        guard query.includesDisk else { return .none }
        for key in Set([resolved.keys.resultKey, resolved.keys.dataKey]) {
            if await resolved.cache.containsImage(forKey: key, cacheType: .disk) == .disk { return .disk }
        }
        return .none
    }

    /// Whether a load of `request` would be served by a cache tier (see
    /// ``cachedTier(of:)``); `false` for a request the loader refuses.
    public func isCached(_ request: ImageRequest) async -> Bool {
        ((try? await cachedTier(of: request)) ?? .none) != .none
    }

    /// The keys, cache and context of a load of `request`, resolved as the
    /// load resolves them (the request modifier's header fields included).
    private func resolvedKeys(of request: ImageRequest) async throws -> ImageLoadRequest {
        try await makeRequest(request.url, options: Self.loadOptions(request, decodes: true), context: request.context)
    }
}
