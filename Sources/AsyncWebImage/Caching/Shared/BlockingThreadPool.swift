import Dispatch
import Foundation
import Synchronization
import AWILocking

/// A fixed set of dedicated threads for blocking calls (hiredis's
/// synchronous client), so they never occupy the cooperative pool.
///
/// Why not the cooperative pool: a Redis command blocks its thread for up to
/// the command timeout when a node is slow, and the pool has one thread per
/// core (two on a small server); a handful of such waits would stall every
/// task in the process. Why not Dispatch: its global queues grow threads
/// without a bound when jobs block. The threads end when the pool is released.
final class BlockingThreadPool: Sendable {
    /// What the threads share with the pool; they hold only this, so
    /// releasing the pool lets them finish.
    private final class JobQueue: Sendable {
        struct State {
            var jobs: [@Sendable () -> Void] = []
            var head = 0
            var isShutDown = false
        }

        let state = Lock(State())
        /// Signalled once per job pushed, and once per thread at shut-down.
        let wakeUps = DispatchSemaphore(value: 0)

        func push(_ job: @escaping @Sendable () -> Void) {
            state.withLock { $0.jobs.append(job) }
            wakeUps.signal()
        }

        func shutDown(threads: Int) {
            state.withLock { $0.isShutDown = true }
            for _ in 0..<threads { wakeUps.signal() }
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
        for index in 0..<self.threadCount {
            let queue = self.queue
            let thread = Thread { queue.run() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit {
        queue.shutDown(threads: threadCount)
    }

    /// Queues `job` for one of the pool's threads and returns at once.
    func submit(_ job: @escaping @Sendable () -> Void) {
        queue.push(job)
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    ///
    /// The call is not cancellable once queued: what bounds it is the
    /// timeouts of the blocking calls `body` makes.
    func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        let queue = self.queue
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result, Never>) in
            queue.push {
                let result = body()
                // Releasing the lock before the resume gives the consumer's
                // `observeHandOff` below an edge ThreadSanitizer can see (the
                // runtime's own hand-off is invisible to it; see Lock).
                queue.state.withLock { _ in }
                continuation.resume(returning: result)
            }
        }
        queue.state.observeHandOff()
        return result
    }
}
