extension DiskStore {
    /// What a ``DiskStore`` did since it was created.
    public struct Statistics: Sendable, Hashable, CustomStringConvertible {
        /// Reads that returned data.
        public var hits = 0
        /// Of ``hits``, the reads served on the caller's thread without
        /// blocking (entry in the kernel's page cache), with no hop to the
        /// store's I/O thread.
        public var residentHits = 0
        /// Reads that found nothing, including damaged entries.
        public var misses = 0
        /// Entries found damaged (truncated, overwritten, unreadable) and removed.
        public var damagedEntries = 0
        /// Entries written.
        public var writes = 0
        /// Writes that failed (the older entry, if any, is intact).
        public var failedWrites = 0
        /// Cleanup passes run (at start, periodic, triggered by size, or on demand).
        public var cleanups = 0
        /// Cleanup passes that failed (for example, the directory became unreadable).
        public var failedCleanups = 0
        /// Entries removed because they expired.
        public var expiredEntries = 0
        /// Entries removed to bring the store under its size limit.
        public var trimmedEntries = 0

        /// Creates empty statistics.
        public init() {}

        public var description: String {
            "DiskStore(hits \(hits) (resident \(residentHits)), misses \(misses), damaged \(damagedEntries), writes \(writes), "
                + "failed writes \(failedWrites), cleanups \(cleanups), failed \(failedCleanups), "
                + "expired \(expiredEntries), trimmed \(trimmedEntries))"
        }
    }
}
