import NIOCore
import Synchronization
import AWILocking
import Logging

/// One Redis node as the store sees it: its connections (at most
/// ``RedisStore/Configuration/connectionsPerEndpoint``, reused), its
/// breaker, and the writes waiting to be pipelined to it.
///
/// A command takes a connection for itself (an idle one, a new one, or the
/// next one returned, waiting in line within its deadline), so a deadline
/// that passes or a cancellation closes only that command's connection.
final class RedisNode: Sendable {
    /// A write waiting for the next pipelined batch; resumed with its reply
    /// (`nil` when the batch failed).
    struct PendingWrite {
        let command: [[UInt8]]
        /// Its admission (``RedisNode/admit()``).
        let ticket: Admission
        let byteCount: Int
        let continuation: UnsafeContinuation<RedisReply?, Never>
    }

    /// What a command waiting for a connection is handed.
    enum Handoff {
        /// A connection someone returned.
        case connection(RedisConnection)
        /// Room to open one (the open count already includes it).
        case room
        /// The wait ended without either.
        case failed(RedisFailure)
    }

    /// A command waiting for a connection, from entering the line to being served.
    fileprivate enum Waiter {
        /// Entered; its continuation is not registered yet.
        case pending
        /// Registered and in line.
        case waiting(UnsafeContinuation<Handoff, Never>)
        /// Cancelled before its continuation was registered.
        case cancelled
    }

    struct State {
        var idle: [RedisConnection] = []
        /// Connections open or being opened (idle and in use).
        var open = 0
        var breaker: CircuitBreaker
        var pendingWrites: [PendingWrite] = []
        var pendingBytes = 0
        var isFlushing = false
        var isShutDown = false
        fileprivate var waiters: [UInt64: Waiter] = [:]
        /// Registered waiters in arrival order; served or departed ones are skipped.
        fileprivate var line = CircularBuffer<UInt64>()
        fileprivate var nextWaiter: UInt64 = 0

        /// The first waiter still in line, taken out of it.
        fileprivate mutating func nextInLine() -> UnsafeContinuation<Handoff, Never>? {
            while let id = line.popFirst() {
                if case .waiting(let continuation)? = waiters.removeValue(forKey: id) { return continuation }
            }
            return nil
        }
    }

    let endpoint: RedisStore.Endpoint
    let state: Lock<State>
    private let configuration: RedisStore.Configuration
    private let settings: RedisConnection.Settings
    private let statistics: RedisCounters
    private let eventLoop: any EventLoop

    init(
        endpoint: RedisStore.Endpoint, configuration: RedisStore.Configuration, settings: RedisConnection.Settings,
        eventLoop: any EventLoop, statistics: RedisCounters
    ) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.settings = settings
        self.eventLoop = eventLoop
        self.statistics = statistics
        state = Lock(State(breaker: CircuitBreaker(
            failureThreshold: configuration.failureThreshold, coolDown: configuration.breakerCoolDown
        )))
    }

    deinit {
        // Idle connections are registered with the event loop, which would
        // keep their sockets open: close them with the node.
        for connection in state.withLock({ $0.idle }) { connection.close() }
    }

    // MARK: The breaker

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

    /// Whether a request admitted with `ticket` may still go out now that
    /// its turn came: not when the breaker opened while it waited (the
    /// caller counts it as turned away, like one refused at once).
    private func stillAdmits(_ ticket: Admission) -> Bool {
        state.withLock { $0.breaker.stillAllows(admittedAt: ticket.openings) }
    }

    /// Whether the breaker is open now (for the cluster's refresh trigger).
    var isBreakerOpen: Bool {
        state.withLock { if case .open = $0.breaker.state { true } else { false } }
    }

    // MARK: Commands

    /// Sends `commands` in one round trip on a connection of this node,
    /// before `deadline`; every outcome feeds the breaker.
    ///
    /// - Returns: the replies, or the failure (a miss for the caller, who
    ///   falls back to disk and the network).
    func send(_ commands: [[[UInt8]]], admitted ticket: Admission, deadline: NIODeadline) async -> Result<[RedisReply], RedisFailure> {
        let connection: RedisConnection
        do throws(RedisFailure) {
            connection = try await checkOut(admitted: ticket, deadline: deadline)
        } catch {
            record(error)
            return .failure(error)
        }
        guard stillAdmits(ticket) else {
            checkIn(connection, reusable: true)
            record(.breakerOpen)
            return .failure(.breakerOpen)
        }
        do throws(RedisFailure) {
            let replies = try await connection.send(commands, deadline: deadline)
            state.withLock { $0.breaker.recordSuccess() }
            checkIn(connection, reusable: true)
            return .success(replies)
        } catch {
            // The breaker first: the connection's room may go to a command
            // in line, which must see the breaker this failure opened.
            record(error)
            checkIn(connection, reusable: false)
            return .failure(error)
        }
    }

    /// Counts a failure, feeds the breaker with it when it says something
    /// about the node, and logs it (a warning when the breaker opens).
    private func record(_ failure: RedisFailure) {
        switch failure {
        case .valueTooLarge: statistics.update { $0.oversizedReads += 1 }
        case .expired: statistics.update { $0.timeouts += 1 }
        case .breakerOpen: statistics.update { $0.skippedByBreaker += 1 }
        default: break
        }
        guard failure.countsAgainstNode else { return }
        let opened = state.withLock { state in
            let before = state.breaker.openings
            state.breaker.recordFailure(now: .now)
            return state.breaker.openings > before
        }
        statistics.update { statistics in
            statistics.failures += 1
            if failure == .timedOut { statistics.timeouts += 1 }
            if opened { statistics.breakerOpenings += 1 }
        }
        configuration.logger.debug("shared tier request failed", metadata: [
            "awi.endpoint": .stringConvertible(endpoint), "awi.error": .string(failure.description),
        ])
        if opened {
            configuration.logger.warning("shared tier breaker opened; falling back to disk and network", metadata: [
                "awi.endpoint": .stringConvertible(endpoint),
                "awi.coolDown": .stringConvertible(configuration.breakerCoolDown),
            ])
        }
    }

    // MARK: Connections

    /// A connection for one command: an idle one, a new one while fewer
    /// than the limit are open, else the next one returned.
    private func checkOut(admitted ticket: Admission, deadline: NIODeadline) async throws(RedisFailure) -> RedisConnection {
        enum Step {
            case use(RedisConnection)
            case open
            case wait
            case fail(RedisFailure)
        }
        let limit = max(1, configuration.connectionsPerEndpoint)
        let step: Step = state.withLock { state in
            if state.isShutDown { return .fail(.shutDown) }
            while let connection = state.idle.popLast() {
                if connection.isUsable { return .use(connection) }
                state.open -= 1
            }
            guard state.open < limit else { return .wait }
            state.open += 1
            return .open
        }
        switch step {
        case .use(let connection): return connection
        case .open: return try await open(deadline: deadline)
        case .fail(let failure): throw failure
        case .wait:
            switch await waitInLine(deadline: deadline) {
            case .connection(let connection): return connection
            case .room:
                // The breaker may have opened on the commands this one
                // waited behind: then no connection is opened for it.
                guard stillAdmits(ticket) else {
                    releaseRoom()
                    throw .breakerOpen
                }
                return try await open(deadline: deadline)
            case .failed(let failure): throw failure
            }
        }
    }

    /// Opens a connection in room already counted in `open`; gives the
    /// room back (to the next in line) when it fails.
    private func open(deadline: NIODeadline) async throws(RedisFailure) -> RedisConnection {
        guard deadline > .now() else {
            releaseRoom()
            throw .expired
        }
        do throws(RedisFailure) {
            let connection = try await RedisConnection.connect(to: endpoint, settings: settings, eventLoop: eventLoop, deadline: deadline)
            statistics.update { $0.connectionsOpened += 1 }
            return connection
        } catch {
            releaseRoom()
            throw error
        }
    }

    /// Returns a connection: to the first in line, to the idle list, or
    /// closed (and its room to the first in line) when it is not reusable.
    func checkIn(_ connection: RedisConnection, reusable: Bool) {
        let keep = reusable && connection.isUsable
        let next: (UnsafeContinuation<Handoff, Never>, Handoff)? = state.withLock { state in
            if keep && !state.isShutDown {
                if let waiter = state.nextInLine() { return (waiter, .connection(connection)) }
                state.idle.append(connection)
                return nil
            }
            if !state.isShutDown, let waiter = state.nextInLine() { return (waiter, .room) }
            state.open -= 1
            return nil
        }
        if !keep || state.withLock({ $0.isShutDown }) { connection.close() }
        if let (waiter, handoff) = next { waiter.resume(returning: handoff) }
    }

    /// Gives back room that a failed connect held.
    private func releaseRoom() {
        let next = state.withLock { state -> UnsafeContinuation<Handoff, Never>? in
            if !state.isShutDown, let waiter = state.nextInLine() { return waiter }
            state.open -= 1
            return nil
        }
        next?.resume(returning: .room)
    }

    /// Waits in line for a connection or room, until `deadline` or cancellation.
    private func waitInLine(deadline: NIODeadline) async -> Handoff {
        let id = state.withLock { state in
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = .pending
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Handoff, Never>) in
                let now: Handoff? = state.withLock { state in
                    if case .cancelled? = state.waiters[id] {
                        state.waiters.removeValue(forKey: id)
                        return .failed(.cancelled)
                    }
                    if state.isShutDown {
                        state.waiters.removeValue(forKey: id)
                        return .failed(.shutDown)
                    }
                    state.waiters[id] = .waiting(continuation)
                    state.line.append(id)
                    return nil
                }
                if let now {
                    continuation.resume(returning: now)
                    return
                }
                eventLoop.scheduleTask(deadline: deadline) { [self] in leaveLine(id, with: .expired) }
            }
        } onCancel: {
            leaveLine(id, with: .cancelled)
        }
    }

    /// Takes waiter `id` out of line with `failure`, if it is still there
    /// (marks it cancelled when it has not registered yet).
    private func leaveLine(_ id: UInt64, with failure: RedisFailure) {
        let continuation = state.withLock { state -> UnsafeContinuation<Handoff, Never>? in
            switch state.waiters[id] {
            case .pending?:
                if failure == .cancelled { state.waiters[id] = .cancelled }
                return nil
            case .waiting(let continuation)?:
                state.waiters.removeValue(forKey: id)
                return continuation
            case .cancelled?, nil:
                return nil
            }
        }
        continuation?.resume(returning: .failed(failure))
    }

    /// Refuses new commands, fails those in line, and closes the idle
    /// connections; connections in use close as they come back.
    func shutDown() {
        let (idle, waiting) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.idle.removeAll()
                state.waiters.removeAll()
                state.line.removeAll()
            }
            var waiting: [UnsafeContinuation<Handoff, Never>] = []
            for case .waiting(let continuation) in state.waiters.values { waiting.append(continuation) }
            return (state.idle, waiting)
        }
        for connection in idle { connection.close() }
        for continuation in waiting { continuation.resume(returning: .failed(.shutDown)) }
    }
}
