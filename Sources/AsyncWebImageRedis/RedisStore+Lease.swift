package import AsyncWebImage
import Foundation
import NIOCore

extension RedisStore: CacheLeasing {
    /// Takes the fetch lease for `key` for ``Configuration/leaseDuration``.
    package func acquireLease(forKey key: String) async -> CacheLeaseOutcome {
        await acquireLease(forKey: key, duration: configuration.leaseDuration)
    }

    /// Waits for `key`'s entry, polling every ``Configuration/leasePollInterval``
    /// for at most ``Configuration/leaseWaitTimeout``.
    ///
    /// - Throws: `CancellationError` when the caller's task is cancelled.
    package func waitForEntry(forKey key: String) async throws -> CacheLeaseWait {
        try await waitForEntry(forKey: key, pollInterval: configuration.leasePollInterval, timeout: configuration.leaseWaitTimeout)
    }

    package func waitForRelease(forKey key: String) async throws -> CacheLeaseWait {
        try await waitForRelease(forKey: key, pollInterval: configuration.leasePollInterval, timeout: configuration.leaseWaitTimeout)
    }

    /// Takes the lease for `key` for `duration` (`SET name token NX PX ms`),
    /// unless another server holds it.
    package func acquireLease(forKey key: String, duration: Duration) async -> CacheLeaseOutcome {
        guard enter() else { return .unavailable }
        defer { leave() }
        let placement = placement(for: key)
        let token = UUID().uuidString
        let reply = await execute(
            [Array("SET".utf8), placement.leaseName, Array(token.utf8), Array("NX".utf8)] + Self.expiry(duration),
            at: placement, reading: false, deadline: .now() + TimeAmount(configuration.commandTimeout)
        )
        switch reply {
        case .status("OK")?: return .acquired(CacheLease(key: key, token: token))
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
    package func releaseLease(_ lease: CacheLease) async -> Bool {
        guard enter() else { return false }
        defer { leave() }
        let placement = placement(for: lease.key)
        let script = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
        let reply = await execute(
            [Array("EVAL".utf8), Array(script.utf8), Array("1".utf8), placement.leaseName, Array(lease.token.utf8)],
            at: placement, reading: false, deadline: .now() + TimeAmount(configuration.commandTimeout)
        )
        return reply == .integer(1)
    }

    /// Waits for another server's fetch of `key`: polls the entry and the
    /// lease together (`MGET`, one round trip; both names share a cluster
    /// slot) every `pollInterval` until the entry appears, the lease is
    /// gone, or `timeout` passes. Each poll keeps the lookup budget.
    ///
    /// Bounded polling rather than pub/sub: a waiter needs no connection of
    /// its own for the wait, a holder that dies needs no clean-up message
    /// (its lease simply expires), and at 25 ms a wait costs one small
    /// command per interval per waiting server — per-process coalescing
    /// already makes that one waiter per key per server.
    ///
    /// - Throws: `CancellationError` when the caller's task is cancelled.
    package func waitForEntry(forKey key: String, pollInterval: Duration = .milliseconds(25), timeout: Duration) async throws -> CacheLeaseWait {
        try await poll(forKey: key, takingEntry: true, pollInterval: pollInterval, timeout: timeout)
    }

    /// Waits for another server to let `key`'s lease go (its revalidation of
    /// the entry the tier holds is stored by then): polls the lease as
    /// ``waitForEntry(forKey:pollInterval:timeout:)`` does, without taking
    /// the entry, which was there all along.
    ///
    /// - Throws: `CancellationError` when the caller's task is cancelled.
    package func waitForRelease(forKey key: String, pollInterval: Duration = .milliseconds(25), timeout: Duration) async throws -> CacheLeaseWait {
        try await poll(forKey: key, takingEntry: false, pollInterval: pollInterval, timeout: timeout)
    }

    /// The polling loop of both waits: with `takingEntry`, an entry that
    /// appears ends it; else only the lease's end does.
    private func poll(forKey key: String, takingEntry: Bool, pollInterval: Duration, timeout: Duration) async throws -> CacheLeaseWait {
        let placement = placement(for: key)
        let deadline = ContinuousClock.now + timeout
        // Bounded by `timeout`: each pass sleeps `pollInterval` or returns.
        while true {
            try Task.checkCancellation()
            guard enter() else { return .unavailable }
            // The value only when it can end the wait: a revalidation's
            // waiter would otherwise read a whole image every interval.
            let names = takingEntry ? [placement.valueName, placement.leaseName] : [placement.leaseName]
            let reply = await execute(
                [Array("MGET".utf8)] + names,
                at: placement, reading: false, deadline: .now() + TimeAmount(configuration.lookupBudget)
            )
            leave()
            guard case .array(let parts)? = reply, parts.count == names.count else {
                try Task.checkCancellation()
                return .unavailable
            }
            if takingEntry, case .bulk(let bytes) = parts[0], let entry = RedisCacheEntry(decoding: bytes), entry.key == key {
                counters.update { $0.hits += 1 }
                return .entry(data: entry.data, extendedData: entry.extendedData)
            }
            if parts[names.count - 1] == .null { return .leaseGone }
            guard ContinuousClock.now + pollInterval <= deadline else { return .timedOut }
            try await Task.sleep(for: pollInterval)
        }
    }
}
