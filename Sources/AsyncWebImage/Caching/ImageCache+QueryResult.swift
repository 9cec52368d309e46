public import Foundation

extension ImageCache {
    /// What a query found, and where.
    public struct QueryResult: Sendable {
        /// The image: from memory, or decoded from disk data. `nil` only for a
        /// disk hit queried with ``QueryOptions/avoidDecode``.
        public var image: Image?
        /// The encoded data: always for a disk hit; for a memory hit only with
        /// ``QueryOptions/queryMemoryData`` or ``QueryOptions/avoidDecode`` and
        /// when the disk tier has it.
        public var data: Data?
        /// The entry's extended data, when asked for with
        /// ``QueryOptions/includeExtendedData`` and the entry has some.
        public var extendedData: Data?
        /// ``ImageCacheType/memory`` or ``ImageCacheType/disk``.
        public var cacheType: ImageCacheType

        /// Creates a result.
        public init(image: Image?, data: Data?, extendedData: Data?, cacheType: ImageCacheType) {
            self.image = image
            self.data = data
            self.extendedData = extendedData
            self.cacheType = cacheType
        }
    }
}
