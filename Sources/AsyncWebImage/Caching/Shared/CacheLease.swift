/// The right, held for a while, to fetch one key from the origin for a fleet.
package struct CacheLease: Sendable, Hashable {
    /// The cache key the lease is for.
    public let key: String
    /// This holder's random token: only its holder can release it.
    public let token: String

    /// Creates a lease value (a ``CacheLeasing`` tier makes them).
    public init(key: String, token: String) {
        self.key = key
        self.token = token
    }
}
