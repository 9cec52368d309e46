extension ImageLoader.ImagePrefetchSequence {
    /// How far one prefetch has come.
    public struct Progress: Sendable, Hashable, CustomStringConvertible {
        /// URLs now in the caches (loaded, or already cached).
        public var finished: Int
        /// URLs that failed and were skipped (including blocked ones).
        public var skipped: Int
        /// URLs in this prefetch.
        public var total: Int

        /// Creates a progress value.
        public init(finished: Int = 0, skipped: Int = 0, total: Int) {
            self.finished = finished
            self.skipped = skipped
            self.total = total
        }

        /// URLs dealt with so far, either way.
        public var completed: Int { finished + skipped }

        /// Whether every URL has been dealt with.
        public var isComplete: Bool { completed >= total }

        public var description: String { "\(finished) finished, \(skipped) skipped of \(total)" }
    }
}
