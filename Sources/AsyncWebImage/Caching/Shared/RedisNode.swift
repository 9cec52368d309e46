import Synchronization
import AWILocking
import Logging

/// One Redis node as the store sees it: its idle connections, its breaker,
/// and the writes waiting to be pipelined to it.
final class RedisNode: Sendable {
    /// A write waiting for the next pipelined batch.
    struct PendingWrite {
        let command: [[UInt8]]
        /// Its admission (``RedisNode/admit()``).
        let ticket: Admission
        let byteCount: Int
        let continuation: UnsafeContinuation<Bool, Never>
    }

    struct State {
        var idle: [RedisConnection] = []
        var breaker: CircuitBreaker
        var pendingWrites: [PendingWrite] = []
        var pendingBytes = 0
        var isFlushing = false
    }

    let endpoint: RedisStore.Endpoint
    let state: Lock<State>
    private let configuration: RedisStore.Configuration
    private let statistics: RedisCounters

    init(endpoint: RedisStore.Endpoint, configuration: RedisStore.Configuration, statistics: RedisCounters) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.statistics = statistics
        state = Lock(State(breaker: CircuitBreaker(
            failureThreshold: configuration.failureThreshold, coolDown: configuration.breakerCoolDown
        )))
    }

    /// A request's admission by the breaker: how many times it had opened
    /// when the request was let through.
    struct Admission: Sendable {
        let openings: Int
    }

    /// Whether a request may go to the node now (its breaker's verdict):
    /// its admission, or `nil` (counted) when the breaker turns it away.
    func admit() -> Admission? {
        let openings = state.withLock { state -> Int? in
            state.breaker.allowsRequest(now: .now) ? state.breaker.openings : nil
        }
        guard let openings else {
            statistics.update { $0.skippedByBreaker += 1 }
            return nil
        }
        return Admission(openings: openings)
    }

    /// Whether a request admitted with `ticket` may still go out now that a
    /// thread takes it: not when the breaker opened while it waited
    /// (counted as turned away, like one refused at once).
    func stillAdmits(_ ticket: Admission) -> Bool {
        let allowed = state.withLock { $0.breaker.stillAllows(admittedAt: ticket.openings) }
        if !allowed { statistics.update { $0.skippedByBreaker += 1 } }
        return allowed
    }

    /// Runs `body` with a connection (an idle one, or a new one), then
    /// keeps the connection for reuse, or drops it when the link failed;
    /// `nil` without asking when the breaker opened after `ticket` was
    /// given. Blocking: call it on the store's thread pool. Every outcome
    /// feeds the breaker.
    func withConnection<Result>(
        admitted ticket: Admission, _ body: (RedisConnection) throws(RedisConnection.Failure) -> Result
    ) -> Result? {
        guard stillAdmits(ticket) else { return nil }
        do {
            let connection = try checkOut()
            let result = try body(connection)
            state.withLock { state in
                state.breaker.recordSuccess()
                if state.idle.count < configuration.connectionsPerEndpoint { state.idle.append(connection) }
            }
            return result
        } catch {
            let opened = state.withLock { state in
                let before = state.breaker.openings
                state.breaker.recordFailure(now: .now)
                return state.breaker.openings > before
            }
            statistics.update { statistics in
                statistics.failures += 1
                if opened { statistics.breakerOpenings += 1 }
            }
            // A miss for the caller, who falls back to disk and the network.
            configuration.logger.debug("shared tier request failed", metadata: [
                "awi.endpoint": .stringConvertible(endpoint), "awi.error": .string(String(describing: error)),
            ])
            if opened {
                configuration.logger.warning("shared tier breaker opened; falling back to disk and network", metadata: [
                    "awi.endpoint": .stringConvertible(endpoint),
                    "awi.coolDown": .stringConvertible(configuration.breakerCoolDown),
                ])
            }
            return nil
        }
    }

    /// Closes the idle connections (after the store's threads have ended,
    /// none is checked out).
    func closeIdleConnections() {
        let connections = state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle
        }
        // Freed here, outside the lock, as the last reference goes.
        _ = connections
    }

    private func checkOut() throws(RedisConnection.Failure) -> RedisConnection {
        if let idle = state.withLock({ $0.idle.popLast() }) { return idle }
        let connection = try RedisConnection(
            host: endpoint.host, port: endpoint.port,
            connectTimeout: configuration.connectTimeout, commandTimeout: configuration.commandTimeout
        )
        statistics.update { $0.connectionsOpened += 1 }
        return connection
    }
}
