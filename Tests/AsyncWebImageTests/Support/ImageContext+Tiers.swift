@testable import AsyncWebImage

extension ImageContext {
    /// A context that sets the given cache tiers (and `base`'s other values):
    /// the tiers are set through properties, never through the initialiser.
    static func tiers(
        _ base: ImageContext = ImageContext(), store: ImageCacheType? = nil, original: ImageCacheType? = nil, query: ImageCacheType? = nil
    ) -> ImageContext {
        var context = base
        if let store { context.storeCacheType = store }
        if let original { context.originalStoreCacheType = original }
        if let query { context.queryCacheType = query }
        return context
    }
}
