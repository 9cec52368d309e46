extension DownloadCoalescer {
    /// Limits and defaults of a ``DownloadCoalescer``.
    public struct Configuration: Sendable {
        /// The most body bytes kept for one transfer; more fails it with
        /// ``ImageError/tooLarge(_:limit:actual:)``. A second guard behind the
        /// loader's own limit, for loaders without one. 64 MiB by default.
        public var maxResponseBytes: Int64 = 64 * 1024 * 1024
        /// How transfers are retried when their request names no policy.
        /// ``RetryPolicy/none`` by default (see ``RetryPolicy`` for why).
        public var retryPolicy: RetryPolicy = .none
        /// The modifiers used when a download names none. None by default.
        public var modifiers = DownloadModifiers()

        /// Creates the default configuration.
        public init() {}
    }
}
