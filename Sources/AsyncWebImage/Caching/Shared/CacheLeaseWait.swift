package import Foundation

/// What ``CacheLeasing/waitForEntry(forKey:)`` saw.
package enum CacheLeaseWait: Sendable {
    /// The holder stored the entry.
    case entry(data: Data, extendedData: Data?)
    /// The lease is gone (released without an entry, or expired because
    /// its holder died) and there is no entry: fetch it yourself.
    case leaseGone
    /// Neither happened within the tier's wait timeout.
    case timedOut
    /// The tier could not be asked: fetch without waiting.
    case unavailable
}
