extension MemoryCache {
    /// What a ``MemoryCache`` did since it was created (or since ``MemoryCache/resetStatistics()``)
    /// and what it holds now.
    public struct Statistics: Sendable, Hashable, CustomStringConvertible {
        /// Lookups answered from the LRU.
        public var hits = 0
        /// Lookups answered by neither the LRU nor the weak-recovery table.
        public var misses = 0
        /// Lookups answered by the weak-recovery table (the image was evicted
        /// but still alive elsewhere; it is back in the LRU now).
        public var recoveries = 0
        /// Entries the LRU evicted to stay within its limits.
        public var evictions = 0
        /// Images dropped because their ``Configuration/entryLifetime`` had passed.
        public var expirations = 0
        /// Images refused: previews, and images over the entry cost limit.
        public var rejections = 0
        /// Bytes of pixels in the LRU now.
        public var totalCost = 0
        /// Images in the LRU now.
        public var count = 0
        /// Entries in the weak-recovery table now (some may be dead and not yet swept).
        public var weakCount = 0

        /// Creates empty statistics.
        public init() {}

        public var description: String {
            "MemoryCache(hits \(hits), misses \(misses), recoveries \(recoveries), evictions \(evictions), "
                + "expirations \(expirations), rejections \(rejections), cost \(totalCost), count \(count), weak \(weakCount))"
        }
    }
}
