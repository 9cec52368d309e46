public import Foundation

/// The result of ``ImageLoader/data(for:)``: the encoded bytes of an image,
/// not decoded, with the response head they came with and where they came from.
///
/// For a proxy that passes bytes on, a prefetch into the disk cache, or a
/// check of what the origin sent; SDWebImage's `.avoidDecodeImage`.
public struct ImageDataResponse: Sendable {
    /// The bytes: as downloaded (and decrypted), or as the disk tier holds them.
    public let data: Data
    /// The head of the HTTP response the bytes came from, as the cache
    /// returns it (see ``ImageResponse/head``): the one just received, or
    /// the stored one with its `Age`; `nil` when the loader kept none.
    public let head: HTTPResponseHead?
    /// Where the bytes came from: ``ImageCacheType/none`` (the network) or
    /// ``ImageCacheType/disk``.
    public let cacheType: ImageCacheType
    /// The URL that was asked for.
    public let url: URL

    /// Creates a response.
    public init(data: Data, head: HTTPResponseHead?, cacheType: ImageCacheType, url: URL) {
        self.data = data
        self.head = head
        self.cacheType = cacheType
        self.url = url
    }
}
