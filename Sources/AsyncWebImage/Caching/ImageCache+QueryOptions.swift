extension ImageCache {
    /// What ``ImageCache/query(forKey:cacheType:options:)`` reads beside the
    /// entry itself.
    public struct QueryOptions: Sendable, Hashable {
        /// On a memory hit, also read the encoded bytes from the disk tier
        /// (SDWebImage's `queryMemoryData`), when the query's cache type
        /// includes the disk. `false` by default: a memory hit then costs no
        /// disk access.
        public var queryMemoryData: Bool
        /// Also read the entry's extended data (for example the `ETag` that
        /// `.refreshCached` revalidates with), on memory hits too. `false` by default.
        public var includeExtendedData: Bool

        /// Creates options; every value has the default documented on its property.
        ///
        /// - Parameters:
        ///   - queryMemoryData: Whether a memory hit also reads the disk's bytes.
        ///   - includeExtendedData: Whether to read the extended data too.
        public init(queryMemoryData: Bool = false, includeExtendedData: Bool = false) {
            self.queryMemoryData = queryMemoryData
            self.includeExtendedData = includeExtendedData
        }
    }
}
