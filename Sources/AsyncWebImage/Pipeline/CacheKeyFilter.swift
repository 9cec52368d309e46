public import Foundation

/// Turns a URL into the key its image is cached under, e.g. to drop a
/// signature query parameter that changes on every request (SDWebImage's
/// `SDWebImageCacheKeyFilter`).
public struct CacheKeyFilter: Sendable {
    private let body: @Sendable (URL) -> String?

    /// Creates a filter; returning `nil` falls back to `url.absoluteString`.
    public init(_ body: @escaping @Sendable (URL) -> String?) {
        self.body = body
    }

    /// The cache key for `url`.
    public func key(for url: URL) -> String {
        body(url) ?? url.absoluteString
    }
}
