/// A shared data tier that can elect one server of a fleet to fetch a key
/// from the origin while the others wait for its result in the tier.
///
/// ``ImageLoader`` uses it when its cache's ``ImageCache/sharedTier``
/// conforms (`RedisStore` of the `AsyncWebImageRedis` product does): on a miss in every tier it takes the
/// key's lease before downloading; when another server holds it, it waits
/// for the entry instead, and downloads itself only when the wait ends
/// without one (the holder died, or took too long). Per-process coalescing
/// stays in front, so a server sends at most one waiter per key.
package protocol CacheLeasing: DataCaching {
    /// Takes the fetch lease for `key`, unless another server holds it.
    func acquireLease(forKey key: String) async -> CacheLeaseOutcome

    /// Releases `lease` if it is still this holder's.
    ///
    /// - Returns: whether it was, and is now released.
    @discardableResult
    func releaseLease(_ lease: CacheLease) async -> Bool

    /// Waits for the holder of `key`'s lease to store the entry.
    ///
    /// - Throws: `CancellationError` when the caller is cancelled.
    func waitForEntry(forKey key: String) async throws -> CacheLeaseWait

    /// Waits for the holder of `key`'s lease to let it go, whatever the
    /// entry: how a server waits for another's revalidation of an entry the
    /// tier already holds.
    ///
    /// - Returns: ``CacheLeaseWait/leaseGone`` once the lease is released (or
    ///   expired), ``CacheLeaseWait/timedOut`` or ``CacheLeaseWait/unavailable``.
    /// - Throws: `CancellationError` when the caller is cancelled.
    func waitForRelease(forKey key: String) async throws -> CacheLeaseWait
}
