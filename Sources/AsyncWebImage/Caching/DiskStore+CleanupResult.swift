extension DiskStore {
    /// What one cleanup pass removed and what it left.
    public struct CleanupResult: Sendable, Hashable, CustomStringConvertible {
        /// Entries removed because they were older than ``Configuration/maxAge``.
        public var expiredCount = 0
        /// Entries removed, oldest first, to bring the store under half of ``Configuration/maxSize``.
        public var trimmedCount = 0
        /// Bytes removed with those entries (files and sidecars).
        public var removedBytes = 0
        /// Leftover files removed: temporary files of writes that never
        /// finished (a crash) and sidecars whose entry is gone.
        public var strayFilesRemoved = 0
        /// Entries left.
        public var remainingCount = 0
        /// Bytes left.
        public var remainingSize = 0

        /// Creates an empty result.
        public init() {}

        /// Entries removed, expired or trimmed.
        public var removedCount: Int { expiredCount + trimmedCount }

        public var description: String {
            "cleanup: \(expiredCount) expired, \(trimmedCount) trimmed, \(removedBytes) bytes removed, "
                + "\(strayFilesRemoved) stray files; \(remainingCount) entries, \(remainingSize) bytes left"
        }
    }
}
