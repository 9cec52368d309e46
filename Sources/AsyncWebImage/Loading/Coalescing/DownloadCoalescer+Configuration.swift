extension DownloadCoalescer {
    /// Limits and defaults of a ``DownloadCoalescer``.
    public struct Configuration: Sendable {
        /// How transfers are retried when their request names no policy.
        /// ``DataRequest/RetryPolicy/none`` by default (see ``DataRequest/RetryPolicy`` for why).
        public var retryPolicy: DataRequest.RetryPolicy = .none
        /// The modifiers used when a download names none. None by default.
        public var modifiers = DownloadModifiers()

        /// Creates the default configuration.
        public init() {}
    }
}
