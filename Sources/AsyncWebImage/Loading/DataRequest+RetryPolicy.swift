import Foundation

extension DataRequest {
    /// When and how often a failed download is tried again.
    ///
    /// Only transient failures are retried: a refused or reset connection, a
    /// body cut short, a timeout, and the statuses in ``retryableStatuses``
    /// (408, 429, 500, 502, 503, 504 by default). Any other 4xx, a size over a
    /// limit, a TLS or protocol failure, a refused destination are never retried.
    ///
    /// Between attempts the download waits a random time in `0...min(maxDelay,
    /// baseDelay × 2^(n-1))` after the n-th failure ("full jitter": a fleet of
    /// clients that failed together does not come back together), or what the
    /// server asked for with `Retry-After` (seconds or an HTTP date) when that is
    /// at most ``maxRetryAfter``; a longer `Retry-After` ends the retries at once,
    /// since a request sooner than the server asked would fail again.
    ///
    /// Every wait ends as soon as the download's last subscriber cancels.
    /// Subscribers that share a download share its one sequence of attempts.
    ///
    /// The default, ``none``, makes one attempt: the behaviour of URLSession and
    /// of the loaders this library replaces, which never retry on their own.
    /// A retry multiplies the load on an origin that is already failing and
    /// holds a transfer slot for up to `maxAttempts` × the transfer timeout, so
    /// it is a choice for the application (an app showing a feed may want
    /// ``standard``; a thumbnail proxy facing hostile upstreams may not).
    public struct RetryPolicy: Sendable, Hashable {
        /// Attempts in all, the first included; 1 means no retry.
        public var maxAttempts: Int
        /// The backoff bound after the first failure; it doubles after each further one.
        public var baseDelay: Duration
        /// The largest backoff bound, however many failures came before.
        public var maxDelay: Duration
        /// The longest `Retry-After` honoured; a longer one ends the retries.
        public var maxRetryAfter: Duration
        /// The HTTP statuses retried.
        public var retryableStatuses: Set<Int>

        /// Creates a policy.
        /// - Parameters:
        ///   - maxAttempts: Attempts in all (at least 1).
        ///   - baseDelay: The first backoff bound; 250 ms by default.
        ///   - maxDelay: The largest backoff bound; 5 s by default.
        ///   - maxRetryAfter: The longest `Retry-After` honoured; 10 s by default.
        ///   - retryableStatuses: The statuses retried; 408, 429, 500, 502, 503 and 504 by default.
        public init(
            maxAttempts: Int,
            baseDelay: Duration = .milliseconds(250),
            maxDelay: Duration = .seconds(5),
            maxRetryAfter: Duration = .seconds(10),
            retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
        ) {
            self.maxAttempts = max(1, maxAttempts)
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.maxRetryAfter = maxRetryAfter
            self.retryableStatuses = retryableStatuses
        }

        /// One attempt, no retry: the default (see the type's discussion for why).
        public static let none = DataRequest.RetryPolicy(maxAttempts: 1)

        /// Three attempts, backoff bounds of 250 ms then 500 ms, `Retry-After` up to 10 s.
        public static let standard = DataRequest.RetryPolicy(maxAttempts: 3)

        /// Whether `error` is a failure another attempt may fix.
        func isTransient(_ error: any Error) -> Bool {
            switch error as? ImageError {
            case .httpStatus(let status): retryableStatuses.contains(status)
            case .timeout: true
            case .network(let failure): failure.kind == .cannotConnect || failure.kind == .connectionLost
            default: false
            }
        }

        /// The backoff bound after `failures` failures (1 for the first).
        func backoffBound(afterFailures failures: Int) -> Duration {
            var bound = baseDelay
            for _ in 1..<max(1, failures) {
                bound *= 2
                if bound >= maxDelay { return maxDelay }
            }
            return min(bound, maxDelay)
        }

        /// How long to wait before the next attempt, or nil to stop.
        /// - Parameters:
        ///   - failures: Attempts made so far, all failed.
        ///   - retryAfter: The server's `Retry-After`, if it sent one.
        ///   - random: A uniform value in `0...1` (the jitter).
        func delay(afterFailures failures: Int, retryAfter: Duration?, random: Double) -> Duration? {
            guard failures < maxAttempts else { return nil }
            if let retryAfter {
                return retryAfter <= maxRetryAfter ? max(.zero, retryAfter) : nil
            }
            return backoffBound(afterFailures: failures) * min(1, max(0, random))
        }

        /// A `Retry-After` value (delta-seconds or an HTTP date) as a wait from `now`.
        ///
        /// The date is read by ``HTTPDate``, the parser the HTTP cache uses, so
        /// every HTTP-date the library meets is read by the same rules (the
        /// three forms of RFC 9110 §5.6.7, GMT only).
        static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
            let text = value.trimmingCharacters(in: .whitespaces)
            if let seconds = Int(text) { return seconds >= 0 ? .seconds(seconds) : nil }
            guard let date = HTTPDate.parse(text, now: now) else { return nil }
            return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
        }
    }
}
