public import Foundation

/// The result of an image load: the image, its encoded data when known, and
/// where it came from.
public struct ImageResponse: Sendable {
    /// The decoded image (the final one: thumbnail and transform applied).
    public let image: Image
    /// The encoded data: the downloaded (and decrypted) bytes, the disk
    /// cache's bytes, or `nil` for a memory hit without `.queryMemoryData`.
    public let data: Data?
    /// Where the result came from: ``ImageCacheType/none`` (the network),
    /// ``ImageCacheType/memory`` or ``ImageCacheType/disk``.
    public let cacheType: ImageCacheType
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
    /// returns it: status, header fields (with `Age` when served from a
    /// cache without validation), and the tier that answered. `nil` when the
    /// loader kept no head for it (a `file:` URL, an entry stored before
    /// heads were kept).
    public var head: HTTPResponseHead? { headSource?.head }

    /// Creates a response.
    public init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }
}
