public import Foundation

/// Chooses the bytes stored in the disk cache for a downloaded image,
/// instead of the downloaded bytes themselves (SDWebImage's
/// `SDWebImageCacheSerializer`): for example a re-encoded, smaller JPEG, or
/// the decrypted data.
public struct CacheSerializer: Sendable {
    private let body: @Sendable (Image?, Data, URL) -> Data?

    /// Creates a serializer from `body(image, downloadedData, url)`.
    public init(_ body: @escaping @Sendable (Image?, Data, URL) -> Data?) {
        self.body = body
    }

    /// The data to store for `image`, or `nil` to store nothing.
    ///
    /// - Parameters:
    ///   - image: The decoded image (`nil` for ``ImageLoader/data(for:)``).
    ///   - data: The downloaded (and decrypted) data.
    ///   - url: The URL that was loaded.
    public func cacheData(for image: Image?, originalData data: Data, url: URL) -> Data? {
        body(image, data, url)
    }
}
