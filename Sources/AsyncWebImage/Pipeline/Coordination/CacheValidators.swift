import Foundation
import HTTPTypes

/// The `ETag` and `Last-Modified` of a downloaded image, kept as the disk
/// entry's extended data so that `.refreshCached` can revalidate with a
/// conditional request instead of downloading again.
struct CacheValidators: Codable, Hashable, Sendable {
    var etag: String?
    var lastModified: String?

    /// The validators a response carries, or `nil` when it has none (a
    /// validator repeated with different values is none: see ``SingletonField``).
    init?(head: HTTPResponseHead) {
        etag = HTTPCacheMetadata.value(of: .eTag, in: head)
        lastModified = HTTPCacheMetadata.value(of: .lastModified, in: head)
        if etag == nil && lastModified == nil { return nil }
    }

    /// Decodes validators stored by ``encoded``; `nil` for anything else
    /// (extended data written by other code is left alone).
    init?(encoded data: Data) {
        guard let decoded = try? JSONDecoder().decode(CacheValidators.self, from: data) else { return nil }
        self = decoded
        if etag == nil && lastModified == nil { return nil }
    }

    /// The bytes stored as extended data.
    var encoded: Data? { try? JSONEncoder().encode(self) }

    /// Adds the conditional headers for these validators to `request`.
    func apply(to request: inout DataRequest) {
        if let etag { request.headers[.ifNoneMatch] = etag }
        if let lastModified { request.headers[.ifModifiedSince] = lastModified }
    }
}
