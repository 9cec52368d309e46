public import Foundation

extension RedisStore {
    /// The right, held for a while, to fetch one key from the origin on
    /// behalf of a fleet: while it is held, other servers wait for the
    /// holder's result to appear in Redis instead of fetching it too.
    public struct Lease: Sendable, Hashable {
        /// The cache key the lease is for.
        public let key: String
        /// This holder's random token: only its holder can release it.
        public let token: String
    }

    /// What ``acquireLease(forKey:duration:)`` got.
    public enum LeaseOutcome: Sendable, Hashable {
        /// The caller holds the lease: it fetches, stores, then releases.
        case acquired(Lease)
        /// Another server holds it: wait with ``waitForEntry(forKey:pollInterval:timeout:)``.
        case heldByOther
        /// Redis could not be asked: fetch without a lease.
        case unavailable
    }

    /// What ``waitForEntry(forKey:pollInterval:timeout:)`` saw.
    public enum WaitOutcome: Sendable {
        /// The holder stored the entry.
        case entry(data: Data, extendedData: Data?)
        /// The lease is gone (released without an entry, or expired because
        /// its holder died) and there is no entry: take over.
        case leaseGone
        /// Neither happened within the timeout.
        case timedOut
        /// Redis could not be asked: fetch without waiting.
        case unavailable
    }

    /// Takes the lease for `key` for `duration` (`SET name token NX PX ms`),
    /// unless another server holds it.
    public func acquireLease(forKey key: String, duration: Duration) async -> LeaseOutcome {
        let placement = placement(for: key)
        let token = UUID().uuidString
        let milliseconds = max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        let reply = await send(
            [Array("SET".utf8), placement.leaseName, Array(token.utf8), Array("NX".utf8), Array("PX".utf8), Array(String(milliseconds).utf8)],
            to: placement.node
        )
        switch reply {
        case .status("OK")?: return .acquired(Lease(key: key, token: token))
        case .null?: return .heldByOther
        default: return .unavailable
        }
    }

    /// Releases `lease` if it is still this holder's (a compare-and-delete
    /// in one Lua script, so a lease that expired and was taken by another
    /// server is left alone).
    ///
    /// - Returns: whether the lease was still held and is now released.
    @discardableResult
    public func releaseLease(_ lease: Lease) async -> Bool {
        let placement = placement(for: lease.key)
        let script = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
        let reply = await send(
            [Array("EVAL".utf8), Array(script.utf8), Array("1".utf8), placement.leaseName, Array(lease.token.utf8)],
            to: placement.node
        )
        return reply == .integer(1)
    }

    /// Waits for another server's fetch of `key`: polls the entry and the
    /// lease together (`MGET`, one round trip) every `pollInterval` until the
    /// entry appears, the lease is gone, or `timeout` passes.
    ///
    /// Bounded polling rather than pub/sub: a waiter needs no connection of
    /// its own for the wait, a holder that dies needs no clean-up message
    /// (its lease simply expires), and at 25 ms a wait costs one small
    /// command per interval per waiting server — per-process coalescing
    /// already makes that one waiter per key per server.
    ///
    /// - Throws: `CancellationError` when the caller's task is cancelled.
    public func waitForEntry(forKey key: String, pollInterval: Duration = .milliseconds(25), timeout: Duration) async throws -> WaitOutcome {
        let placement = placement(for: key)
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let reply = await send([Array("MGET".utf8), placement.valueName, placement.leaseName], to: placement.node),
                  case .array(let parts) = reply, parts.count == 2 else { return .unavailable }
            if case .bulk(let bytes) = parts[0], let entry = RedisCacheEntry(decoding: bytes), entry.key == key {
                counters.update { $0.hits += 1 }
                return .entry(data: entry.data, extendedData: entry.extendedData)
            }
            if parts[1] == .null { return .leaseGone }
            guard ContinuousClock.now + pollInterval <= deadline else { return .timedOut }
            try await Task.sleep(for: pollInterval)
        }
    }
}
