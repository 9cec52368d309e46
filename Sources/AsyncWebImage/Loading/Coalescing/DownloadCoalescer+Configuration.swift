extension DownloadCoalescer {
    /// Limits and defaults of a ``DownloadCoalescer``.
    public struct Configuration: Sendable {
        /// How transfers are retried when their request names no policy.
        /// ``RetryPolicy/none`` by default (see ``RetryPolicy`` for why).
        public var retryPolicy: RetryPolicy = .none
        /// The modifiers used when a download names none. None by default.
        public var modifiers = DownloadModifiers()

        /// Creates the default configuration.
        public init() {}
    }
}
