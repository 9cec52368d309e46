extension RedisStore {
    /// What a ``RedisStore`` has done since it was created: a cheap
    /// in-process view for tests, benchmarks and dashboards.
    public struct Statistics: Sendable, Equatable {
        /// Reads that found a whole entry.
        public var hits = 0
        /// Reads that found nothing (or a value that was not a whole entry of the key).
        public var misses = 0
        /// Calls that failed on the link (refused, reset, a deadline passed) and counted as misses.
        public var failures = 0
        /// Calls whose deadline passed: on the node (a slow or hanging node;
        /// also counted in ``failures``) or waiting for one of its
        /// connections (its load; not a failure of the node).
        public var timeouts = 0
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
        /// Values not read because Redis announced more than
        /// ``Configuration/maxValueBytes`` (refused before buffering; a miss).
        public var oversizedReads = 0
        /// Pipelined batches sent (fewer than ``writes`` when writes came together).
        public var writeBatches = 0
        /// Connections opened.
        public var connectionsOpened = 0
        /// Cluster redirections followed (`MOVED` and `ASK`).
        public var redirections = 0
        /// Cluster slot maps read.
        public var topologyRefreshes = 0
    }
}
