public import Foundation

/// The result of ``ImageLoader/data(for:)``: the encoded bytes of an image,
/// not decoded, with where they came from and the response head they came
/// with (as ``ImageResponse`` has them).
///
/// For a proxy that passes bytes on, a prefetch into the disk cache, or a
/// check of what the origin sent; SDWebImage's `.avoidDecodeImage`.
public struct ImageDataResponse: Sendable {
    /// The bytes: as downloaded (and decrypted), or as the disk tier holds them.
    public let data: Data
    /// Where the bytes came from (never ``ImageSource/memory``: memory holds pixels).
    public let source: ImageSource
    /// The URL that was asked for.
    public let url: URL
    /// The head of the HTTP response the bytes came from, as the cache
    /// returns it (see ``ImageResponse/head``); `nil` when the loader kept none.
    public let head: HTTPResponseHead?

    /// Creates a response.
    public init(data: Data, source: ImageSource, url: URL, head: HTTPResponseHead?) {
        self.data = data
        self.source = source
        self.url = url
        self.head = head
    }
}
