import Foundation
import DequeModule
import Synchronization
import AWILocking

/// An asynchronous semaphore: at most ``limit`` holders at once, waiters
/// served first in, first out, and a waiting task that is cancelled leaves
/// the queue at once with `CancellationError`.
///
/// It bounds CPU work (decoding, transforming) so that a burst of requests
/// cannot occupy every thread of the cooperative pool:
///
/// ```swift
/// let image = try await limiter.withPermit { try registry.decode(data) }
/// ```
///
/// A permit is handed straight from the releasing holder to the oldest
/// waiter, so a stream of newcomers cannot overtake a waiting task.
public final class ConcurrencyLimiter: Sendable {
    private typealias Waiter = CheckedContinuation<Void, any Error>

    private enum Ticket {
        /// Handed out; the continuation is not registered yet.
        case pending
        /// Registered and waiting in the queue.
        case waiting(Waiter)
        /// Cancelled before its continuation was registered.
        case cancelled
    }

    private struct State {
        var available: Int
        var nextID: UInt64 = 0
        /// Tickets not yet served; a served ticket is removed.
        var tickets: [UInt64: Ticket] = [:]
        var waitingCount = 0
        /// Registered tickets in arrival order; tickets of cancelled waiters
        /// stay here until they reach the front, where they are skipped.
        var queue = Deque<UInt64>()

        mutating func popOldestWaiter() -> Waiter? {
            while let ticket = queue.popFirst() {
                if case .waiting(let waiter) = tickets[ticket] {
                    tickets.removeValue(forKey: ticket)
                    waitingCount -= 1
                    return waiter
                }
            }
            return nil
        }
    }

    /// One permit per active processor, shared by every loader and cache
    /// that does not set a limiter of its own, so that CPU work stays
    /// bounded by the machine, not by the number of loaders.
    public static let shared = ConcurrencyLimiter()

    /// The most holders at once.
    public let limit: Int
    private let state: Lock<State>

    /// Creates a limiter.
    ///
    /// - Parameter limit: The most concurrent holders, at least 1; `nil` (the
    ///   default) for the number of active processors.
    public init(limit: Int? = nil) {
        let limit = max(1, limit ?? ProcessInfo.processInfo.activeProcessorCount)
        self.limit = limit
        state = Lock(State(available: limit))
    }

    /// Permits free now.
    public var availablePermits: Int { state.withLock { $0.available } }

    /// Tasks waiting for a permit now.
    public var waitingCount: Int { state.withLock { $0.waitingCount } }

    /// Waits for a permit, first in first out. Pair every successful call with
    /// one ``release()``; prefer ``withPermit(isolation:_:)``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it gets
    ///   a permit, even one that is free (it then holds none): work nobody
    ///   waits for does not start.
    public func acquire() async throws {
        try Task.checkCancellation()
        let ticket: UInt64? = state.withLock { state in
            if state.available > 0 && state.waitingCount == 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            state.tickets[state.nextID] = .pending
            return state.nextID
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                // nil: wait; true: a permit is free after all; false: cancelled.
                let outcome: Bool? = state.withLock { state in
                    if case .cancelled = state.tickets[ticket] {
                        state.tickets.removeValue(forKey: ticket)
                        return false
                    }
                    // A release between handing out the ticket and now found
                    // nobody registered and returned its permit to the pool.
                    if state.available > 0 && state.waitingCount == 0 {
                        state.tickets.removeValue(forKey: ticket)
                        state.available -= 1
                        return true
                    }
                    state.tickets[ticket] = .waiting(continuation)
                    state.waitingCount += 1
                    state.queue.append(ticket)
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                switch state.tickets[ticket] {
                case .pending?:
                    state.tickets[ticket] = .cancelled
                    return nil
                case .waiting(let waiter)?:
                    state.tickets.removeValue(forKey: ticket)
                    state.waitingCount -= 1
                    return waiter
                case .cancelled?, nil:
                    return nil // already served (it holds a permit) or already cancelled
                }
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives a permit back: to the oldest waiter if there is one, otherwise to the pool.
    ///
    /// - Important: call it exactly once per successful ``acquire()``.
    public func release() {
        let waiter: Waiter? = state.withLock { state in
            if let waiter = state.popOldestWaiter() { return waiter }
            precondition(state.available < limit, "ConcurrencyLimiter.release() without a matching acquire()")
            state.available += 1
            return nil
        }
        waiter?.resume()
    }

    /// Runs `body` while holding a permit.
    ///
    /// - Parameters:
    ///   - isolation: Where `body` runs: the caller's isolation by default.
    ///   - body: The work to bound.
    /// - Throws: `CancellationError` when cancelled while waiting for a
    ///   permit (`body` does not run), or what `body` throws.
    @discardableResult
    public func withPermit<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await body()
    }
}
