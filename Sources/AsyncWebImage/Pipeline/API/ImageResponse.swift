public import Foundation

/// The result of an image load: the image, its encoded data when known,
/// where it came from and the response head it came with. What
/// ``ImageLoader/response(for:)`` and ``ImageLoader/response(_:options:context:)``
/// return, and what an event stream's `.finished` carries.
public struct ImageResponse: Sendable {
    /// The decoded image (the final one: thumbnail and transform applied).
    public let image: Image
    /// The encoded data: the downloaded (and decrypted) bytes, the disk
    /// cache's bytes, or `nil` for a memory hit without `.queryMemoryData`.
    public let data: Data?
    /// Where the image came from.
    public let source: ImageSource
    /// The URL that was asked for.
    public let url: URL
    /// Why storing the image to disk failed, for a load with
    /// `.waitStoreCache` (the image itself is good); `nil` when the stores
    /// succeeded or were not awaited (then ``ImageCache/diskWriteFailureCount``
    /// counts failures).
    public internal(set) var storeError: ImageError?
    /// What ``head`` is made from (set where the response is made).
    var headSource: ResponseHeadSource?

    /// The head of the HTTP response the image came from, as the cache
    /// returns it: status and header fields, with `Age` and ``HTTPResponseHead/age``
    /// when served from a cache without validation. `nil` when the loader
    /// kept no head for it (a `file:` URL, an entry stored before heads
    /// were kept).
    public var head: HTTPResponseHead? { headSource?.head(url: url) }

    /// Creates a response.
    public init(image: Image, data: Data?, source: ImageSource, url: URL) {
        self.image = image
        self.data = data
        self.source = source
        self.url = url
    }
}
