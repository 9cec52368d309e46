import Dispatch
import Foundation
import Synchronization
import AWILocking

/// A fixed set of dedicated threads for blocking calls (hiredis's
/// synchronous client), so they never occupy the cooperative pool: the
/// library's shared tier before issue 29, kept here as the shared-tier
/// scenario's baseline (`HiredisConnection` on these threads).
///
/// Why not the cooperative pool: a Redis command blocks its thread for up to
/// the command timeout when a node is slow, and the pool has one thread per
/// core (two on a small server); a handful of such waits would stall every
/// task in the process. Why not Dispatch: its global queues grow threads
/// without a bound when jobs block. The threads end at ``shutdown()`` (after
/// the jobs queued before it), or when the pool is released.
final class BlockingThreadPool: Sendable {
    /// What the threads share with the pool; they hold only this, so
    /// releasing the pool lets them finish.
    private final class JobQueue: Sendable {
        struct State {
            var jobs: [@Sendable () -> Void] = []
            var head = 0
            var isShutDown = false
            /// Threads not yet ended.
            var runningThreads = 0
            /// ``BlockingThreadPool/shutdown()`` calls waiting for the last thread to end.
            var exitWaiters: [UnsafeContinuation<Void, Never>] = []
        }

        let state = Lock(State())
        /// Signalled once per job pushed, and once per thread at shut-down.
        let wakeUps = DispatchSemaphore(value: 0)

        /// Queues `job`; `false` (and the job dropped) once shut down.
        func push(_ job: @escaping @Sendable () -> Void) -> Bool {
            let accepted = state.withLock { state in
                guard !state.isShutDown else { return false }
                state.jobs.append(job)
                return true
            }
            if accepted { wakeUps.signal() }
            return accepted
        }

        /// Refuses new jobs and wakes each thread once to end (after the
        /// jobs already queued); `false` when it was done before.
        @discardableResult
        func shutDown(threads: Int) -> Bool {
            let first = state.withLock { state in
                defer { state.isShutDown = true }
                return !state.isShutDown
            }
            if first { for _ in 0..<threads { wakeUps.signal() } }
            return first
        }

        /// Called by each thread as it ends; the last one resumes the waiters.
        func threadEnded() {
            let waiters: [UnsafeContinuation<Void, Never>] = state.withLock { state in
                state.runningThreads -= 1
                guard state.runningThreads == 0 else { return [] }
                defer { state.exitWaiters.removeAll() }
                return state.exitWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func run() {
            while true {
                wakeUps.wait()
                let next: (@Sendable () -> Void)?? = state.withLock { state in
                    if state.head < state.jobs.count {
                        let job = state.jobs[state.head]
                        state.head += 1
                        if state.head == state.jobs.count {
                            state.jobs.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .some(job)
                    }
                    return state.isShutDown ? .none : .some(nil)
                }
                guard let next else { return }
                next?()
            }
        }
    }

    private let queue = JobQueue()
    private let threadCount: Int

    /// Starts `threadCount` threads (at least one).
    ///
    /// - Parameter name: The threads' name, as debuggers show it.
    init(threadCount: Int, name: String) {
        self.threadCount = max(1, threadCount)
        let count = self.threadCount
        queue.state.withLock { $0.runningThreads = count }
        for index in 0..<self.threadCount {
            let queue = self.queue
            let thread = Thread {
                queue.run()
                queue.threadEnded()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit {
        queue.shutDown(threads: threadCount)
    }

    /// Ends the threads: jobs queued before run first, later ones are
    /// refused; returns once every thread has left its loop. Calling it
    /// again waits the same way.
    func shutdown() async {
        let queue = self.queue
        queue.shutDown(threads: threadCount)
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let ended = queue.state.withLock { state in
                guard state.runningThreads > 0 else { return true }
                state.exitWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
        queue.state.observeHandOff()
    }

    /// Queues `job` for one of the pool's threads and returns at once.
    ///
    /// - Returns: `false` when the pool is shut down (the job will not run).
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        queue.push(job)
    }

    /// Runs `body` on one of the pool's threads and returns its result, or
    /// `nil` at once when the pool is shut down.
    ///
    /// The call is not cancellable once queued: what bounds it is the
    /// timeouts of the blocking calls `body` makes.
    func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result? {
        let queue = self.queue
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result?, Never>) in
            let accepted = queue.push {
                let result = body()
                // Releasing the lock before the resume gives the consumer's
                // `observeHandOff` below an edge ThreadSanitizer can see (the
                // runtime's own hand-off is invisible to it; see Lock).
                queue.state.withLock { _ in }
                continuation.resume(returning: result)
            }
            if !accepted { continuation.resume(returning: nil) }
        }
        queue.state.observeHandOff()
        return result
    }
}
