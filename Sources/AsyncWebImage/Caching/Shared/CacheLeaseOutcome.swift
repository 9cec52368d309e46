/// What ``CacheLeasing/acquireLease(forKey:)`` got.
package enum CacheLeaseOutcome: Sendable, Hashable {
    /// The caller holds the lease: it fetches, stores, then releases.
    case acquired(CacheLease)
    /// Another server holds it: wait with ``CacheLeasing/waitForEntry(forKey:)``.
    case heldByOther
    /// The tier could not be asked: fetch without a lease.
    case unavailable
}
