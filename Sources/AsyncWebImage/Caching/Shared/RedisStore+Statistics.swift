extension RedisStore {
    /// What a ``RedisStore`` has done since it was created: a cheap
    /// in-process view for tests, benchmarks and dashboards.
    public struct Statistics: Sendable, Equatable {
        /// Reads that found a whole entry.
        public var hits = 0
        /// Reads that found nothing (or a value that was not a whole entry of the key).
        public var misses = 0
        /// Calls that failed on the link (refused, reset, timed out) and counted as misses.
        public var failures = 0
        /// Calls not sent because the node's breaker was open.
        public var skippedByBreaker = 0
        /// Times a node's breaker opened.
        public var breakerOpenings = 0
        /// Writes Redis acknowledged.
        public var writes = 0
        /// Writes not stored: failed, refused by the breaker or a full queue.
        public var failedWrites = 0
        /// Entries not written because they were over ``Configuration/maxValueBytes``.
        public var oversized = 0
        /// Pipelined batches sent (fewer than ``writes`` when writes came together).
        public var writeBatches = 0
        /// Connections opened.
        public var connectionsOpened = 0
    }
}
