extension ImageCache {
    /// How ``ImageCache/query(forKey:cacheType:options:coders:)`` reads and decodes.
    ///
    /// The loader fills these from its `ImageOptions`: `.queryMemoryData`,
    /// `.avoidDecodeImage`, `.refreshCached` (which needs the extended data),
    /// and the decode size of the request.
    public struct QueryOptions: Sendable, Hashable {
        /// How disk data is decoded (thumbnail size, scale-down, limits).
        /// The defaults of ``ImageDecodingOptions`` by default.
        ///
        /// - Important: the key is used as it is for both tiers. When these
        ///   options change the decoded result, the key should say so (append
        ///   ``ImageDecodingOptions/cacheKeySuffix``, as the loader's
        ///   transformed key does), or a thumbnail and the full image would
        ///   share one memory entry.
        public var decoding: ImageDecodingOptions

        /// On a memory hit, also read the encoded data from the disk tier
        /// (SDWebImage's `queryMemoryData`), when the query's cache type
        /// includes the disk. `false` by default: a memory hit then costs no
        /// disk access.
        public var queryMemoryData: Bool

        /// Return the encoded data without decoding it (`.avoidDecodeImage`):
        /// a disk hit is not decoded and not put in memory. A memory hit
        /// still returns its image, with the disk data when there is some.
        /// `false` by default.
        public var avoidDecode: Bool

        /// Also read the entry's extended data (for example the `ETag` that
        /// `.refreshCached` revalidates with), on memory hits too. `false` by default.
        public var includeExtendedData: Bool

        /// Put an image decoded from disk data in the memory cache. `true` by default.
        public var storesDecodedImageInMemory: Bool

        /// Creates options; every value has the default documented on its property.
        ///
        /// - Parameters:
        ///   - decoding: How disk data is decoded.
        ///   - queryMemoryData: Whether a memory hit also reads the disk data.
        ///   - avoidDecode: Whether to return data without decoding it.
        ///   - includeExtendedData: Whether to read the extended data too.
        ///   - storesDecodedImageInMemory: Whether a disk decode lands in memory.
        public init(
            decoding: ImageDecodingOptions = .init(),
            queryMemoryData: Bool = false,
            avoidDecode: Bool = false,
            includeExtendedData: Bool = false,
            storesDecodedImageInMemory: Bool = true
        ) {
            self.decoding = decoding
            self.queryMemoryData = queryMemoryData
            self.avoidDecode = avoidDecode
            self.includeExtendedData = includeExtendedData
            self.storesDecodedImageInMemory = storesDecodedImageInMemory
        }
    }
}
