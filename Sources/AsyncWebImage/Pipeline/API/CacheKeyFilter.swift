public import Foundation
public import HTTPTypes

/// Turns a URL into the key its image is cached under, e.g. to drop a
/// signature query parameter that changes on every request (SDWebImage's
/// `SDWebImageCacheKeyFilter`), and declares which request header fields do
/// not change the image.
///
/// By default every header field of the request as sent (after the request
/// modifier) is part of the cache identity, so an image loaded with one
/// `Authorization` or `Cookie` is never served to a request with another or
/// none. Naming a field in ``ignoredHeaders`` is the opt-in to share cached
/// images across its values — for a public CDN that wants a token, say:
///
/// ```swift
/// context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [.authorization])
/// ```
public struct CacheKeyFilter: Sendable {
    private let body: (@Sendable (URL) -> String?)?
    /// Header fields left out of the cache identity (matched without regard
    /// to case, as `HTTPField.Name` compares): requests that differ only in
    /// them share memory and disk entries. They still keep downloads apart
    /// (a transfer is never shared).
    public let ignoredHeaders: Set<HTTPField.Name>

    /// Creates a filter; returning `nil` falls back to `url.absoluteString`.
    ///
    /// - Parameters:
    ///   - ignoringHeaders: Header fields whose values do not change the
    ///     image (matched without regard to case); none by default.
    ///   - body: The key for a URL, or `nil` for its absolute string.
    public init(ignoringHeaders: Set<HTTPField.Name> = [], _ body: @escaping @Sendable (URL) -> String?) {
        self.body = body
        self.ignoredHeaders = ignoringHeaders
    }

    /// Creates a filter that keeps the URL as it is and only declares header
    /// fields whose values do not change the image.
    ///
    /// - Parameter ignoringHeaders: The fields, matched without regard to case.
    public init(ignoringHeaders: Set<HTTPField.Name>) {
        self.body = nil
        self.ignoredHeaders = ignoringHeaders
    }

    /// The cache key for `url`.
    public func key(for url: URL) -> String {
        body?(url) ?? url.absoluteString
    }
}
