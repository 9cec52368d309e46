import Foundation
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
///
/// Heavy work (decodes of images declaring more than ``heavyPixelCount``
/// pixels) runs at most ``heavyLimit`` bodies at once, half of the permits by
/// default, on dedicated threads of lower OS priority (nice
/// ``heavyThreadNice``, 10 by default) that hold no normal permit: a few huge
/// images — hostile or not — then take only the CPU that other work leaves,
/// instead of making small images wait behind seconds of decoding
/// (``withPermit(heavy:isolation:_:)``).
package final class ConcurrencyLimiter: Sendable {
    private struct State {
        var available: Int
        var nextID: UInt64 = 0
        var waiters = WaiterQueue()
    }

    /// One permit per core the process may use (see ``init(limit:heavyLimit:heavyPixelCount:heavyThreadNice:)``), shared by every loader and cache
    /// that does not set a limiter of its own, so that CPU work stays
    /// bounded by the machine, not by the number of loaders.
    package static let shared = ConcurrencyLimiter()

    /// The most holders at once.
    package let limit: Int
    /// The most holders of heavy work at once (each also holds one of the
    /// ``limit`` permits).
    package let heavyLimit: Int
    /// Decodes of images declaring more pixels than this are heavy work.
    package let heavyPixelCount: Int
    /// The nice value of the threads heavy work runs on (0 to 19; the
    /// higher, the more other threads go first), or `nil` when heavy work
    /// runs on the cooperative pool holding a normal permit too.
    package let heavyThreadNice: Int?
    /// The permits of heavy work; `nil` when heavy work is not set apart
    /// (``heavyLimit`` is ``limit`` and it has no threads of its own).
    private let heavyLane: ConcurrencyLimiter?
    /// The niced threads heavy bodies run on; `nil` when ``heavyThreadNice`` is.
    let heavyExecutor: HeavyWorkExecutor?
    private let state: Lock<State>

    /// A limiter with `limits`.
    package convenience init(_ limits: ImageLoader.CPULimits) {
        self.init(
            limit: limits.maxConcurrentWork, heavyLimit: limits.maxConcurrentHeavyWork,
            heavyPixelCount: limits.heavyPixelCount, heavyThreadNice: limits.heavyThreadNice
        )
    }

    /// Creates a limiter.
    ///
    /// - Parameters:
    ///   - limit: The most concurrent holders, at least 1; `nil` (the
    ///     default) for the cores the process may use: the fewest of the
    ///     active processors, the CPUs of its affinity mask (`taskset`, a
    ///     cpuset) and its cgroup CPU quota (a container's limit, rounded up).
    ///   - heavyLimit: The most concurrent holders of heavy work, 1 to
    ///     `limit`; `nil` (the default) for half of `limit`, at least 1.
    ///   - heavyPixelCount: The declared pixel count above which a decode
    ///     is heavy work; 20 megapixels by default (a 12 MP phone photo or a
    ///     4K frame is not heavy, a 49 MP scan is).
    ///   - heavyThreadNice: The nice value, clamped to 0...19, of the
    ///     ``heavyLimit`` threads heavy bodies run on; 10 by default (such a
    ///     thread gets about a tenth of a core that a normal thread also
    ///     wants). `nil` runs heavy bodies on the cooperative pool instead,
    ///     each holding a normal permit besides its heavy one.
    package init(limit: Int? = nil, heavyLimit: Int? = nil, heavyPixelCount: Int = 20_000_000, heavyThreadNice: Int? = 10) {
        let limit = max(1, limit ?? AvailableCores.count)
        let heavyLimit = min(limit, max(1, heavyLimit ?? limit / 2))
        let nice = heavyThreadNice.map { min(19, max(0, $0)) }
        self.limit = limit
        self.heavyLimit = heavyLimit
        self.heavyPixelCount = heavyPixelCount
        self.heavyThreadNice = nice
        heavyExecutor = nice.map { HeavyWorkExecutor(name: "awi-heavy", threadCount: heavyLimit, nice: Int32($0)) }
        // With threads of its own, heavy work is set apart even when it may
        // use every permit's worth of threads: those threads yield to the rest.
        heavyLane = heavyLimit < limit || heavyExecutor != nil ? ConcurrencyLimiter(lane: heavyLimit) : nil
        state = Lock(State(available: limit))
    }

    /// A lane's own limiter: plain, no lane of its own.
    private init(lane limit: Int) {
        self.limit = limit
        heavyLimit = limit
        heavyPixelCount = .max
        heavyThreadNice = nil
        heavyLane = nil
        heavyExecutor = nil
        state = Lock(State(available: limit))
    }

    /// Whether decoding an image of `size` is heavy work (unknown sizes are not).
    package func isHeavy(_ size: PixelSize?) -> Bool {
        guard let size else { return false }
        return size.pixelCount > heavyPixelCount
    }

    /// Permits free now.
    package var availablePermits: Int { state.withLock { $0.available } }

    /// Heavy-lane permits free now (0 when heavy work is not set apart).
    var availableHeavyPermits: Int { heavyLane?.availablePermits ?? 0 }

    /// Tasks waiting for a heavy-lane permit now.
    var heavyWaitingCount: Int { heavyLane?.waitingCount ?? 0 }

    /// Tasks waiting for a permit now.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Waits for a permit, first in first out. Pair every successful call with
    /// one ``release()``; prefer ``withPermit(isolation:_:)``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it gets
    ///   a permit, even one that is free (it then holds none): work nobody
    ///   waits for does not start.
    package func acquire() async throws {
        try Task.checkCancellation()
        let ticket: UInt64? = state.withLock { state in
            if state.available > 0 && state.waiters.isEmpty {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            state.waiters.enter(state.nextID)
            return state.nextID
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: WaiterQueue.Waiter) in
                state.withLock { state -> WaiterQueue.Settlement in
                    // A release between entering the ticket and now may have
                    // found nobody in line and returned its permit to the pool.
                    let settlement = state.waiters.settle(ticket, continuation, roomIsFree: state.available > 0)
                    if case .served = settlement { state.available -= 1 }
                    return settlement
                }.finish(continuation)
            }
        } onCancel: {
            // nil when already served (it holds a permit) or already cancelled.
            state.withLock { $0.waiters.cancel(ticket) }?.resume(throwing: CancellationError())
        }
    }

    /// Gives a permit back: to the oldest waiter if there is one, otherwise to the pool.
    ///
    /// - Important: call it exactly once per successful ``acquire()``.
    package func release() {
        let waiter: WaiterQueue.Waiter? = state.withLock { state in
            if let oldest = state.waiters.popOldest() { return oldest.waiter }
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
    package func withPermit<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// Runs `body` while holding a permit, or as heavy work when `heavy` is
    /// set: at most ``heavyLimit`` heavy bodies run at once, so the other
    /// permits stay for other work.
    ///
    /// A heavy body runs on one of the limiter's threads of nice
    /// ``heavyThreadNice`` and holds no normal permit: the OS runs normal
    /// work first, and the heavy work uses what CPU is left. The caller
    /// awaits it; a task cancelled while it waits for its turn leaves at
    /// once. Without ``heavyThreadNice`` (`nil`), a heavy body holds a heavy
    /// permit and a normal one, and runs where `isolation` says.
    ///
    /// - Parameters:
    ///   - heavy: Whether `body` is heavy work (see ``isHeavy(_:)``).
    ///   - isolation: Where `body` runs: the caller's isolation by default.
    ///     A heavy body runs on the niced threads only when this is `nil`
    ///     (a `@concurrent` or nonisolated caller); an actor's body stays on
    ///     the actor.
    ///   - body: The work to bound.
    /// - Throws: `CancellationError` when cancelled while waiting for either
    ///   permit (`body` does not run), or what `body` throws.
    @discardableResult
    package func withPermit<Result>(
        heavy: Bool,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard heavy, let heavyLane else { return try await withPermit(isolation: isolation, body) }
        // The lane first: heavy work waiting for its turn holds no normal permit.
        try await heavyLane.acquire()
        defer { heavyLane.release() }
        if let heavyExecutor {
            // No normal permit: on a niced thread the work only takes CPU that
            // normal-priority work leaves, so it must not take a permit from it.
            return try await withTaskExecutorPreference(heavyExecutor, isolation: isolation) { try await body() }
        }
        try await acquire()
        defer { release() }
        return try await body()
    }
}
