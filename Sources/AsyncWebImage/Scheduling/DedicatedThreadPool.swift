import Dispatch
import Foundation
import DequeModule
import Synchronization
import AWILocking

#if canImport(Glibc)
import Glibc
#endif

/// A few threads of the package's own, outside the cooperative pool, that
/// run the jobs submitted to them first in, first out: the one owner of the
/// package's dedicated threads (the disk store's executor, the heavy-work
/// executor, curl's loop, the benchmark's blocking calls).
///
/// Why threads of their own: a job here may block (file system calls, a
/// synchronous client's socket) or run long without yielding (a decode, curl's
/// poll loop), and the cooperative pool has one thread per core, so such a
/// job there takes a core from every other task for its whole length. Why not
/// Dispatch: its global queues grow threads without a bound when jobs block.
///
/// Threads start as queued jobs need them (all of them at once with
/// `startsEagerly`), up to `threadCount`, and then wait for jobs. After
/// ``shutdown()`` (which the pool's release does too) each thread runs the
/// jobs already queued and ends when it finds the queue empty. What happens
/// to a job submitted after that is the pool's ``LateJobs`` policy.
///
/// The threads hold only the pool's queue, never the pool, so releasing the
/// pool lets them finish.
package final class DedicatedThreadPool: Sendable {
    /// What a pool shut down does with a job submitted to it.
    package enum LateJobs: Sendable {
        /// The job is dropped: ``submit(_:)`` returns `false` and ``run(_:)``
        /// throws ``ImageError/shutDown``.
        case refuse
        /// The job runs on a thread started for it (within the thread count),
        /// which ends once the queue is empty again: a disk store used after
        /// its shutdown still answers and leaves no thread behind.
        case run
    }

    private let queue: JobQueue

    /// Creates the pool.
    ///
    /// - Parameters:
    ///   - name: The threads' name, as `top -H`, debuggers and
    ///     `/proc/self/task/*/comm` show it (the kernel keeps 15 bytes).
    ///   - threadCount: The most threads, at least 1. `1` by default.
    ///   - nice: The threads' nice value, 0 to 19 (higher is lower priority);
    ///     `0` by default, the process's own priority.
    ///   - startsEagerly: Whether every thread starts now rather than with
    ///     the job that needs it. `false` by default.
    ///   - lateJobs: What becomes of a job submitted after ``shutdown()``.
    ///     ``LateJobs/refuse`` by default.
    package init(name: String, threadCount: Int = 1, nice: Int32 = 0, startsEagerly: Bool = false, lateJobs: LateJobs = .refuse) {
        queue = JobQueue(name: name, maxThreads: max(1, threadCount), nice: min(19, max(0, nice)), lateJobs: lateJobs)
        if startsEagerly { queue.startAllThreads() }
    }

    deinit {
        queue.shutDown()
    }

    /// Queues `job` for one of the threads and returns at once.
    ///
    /// - Returns: `false` when the pool is shut down and refuses late jobs
    ///   (the job will not run).
    @discardableResult
    package func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        queue.push(job)
    }

    /// Runs `body` on one of the threads and returns what it returns.
    ///
    /// Cancellation is honoured until `body` starts: a task cancelled before
    /// then leaves at once with `CancellationError`, and `body` never runs.
    /// Once it has started, `body` runs to its end; what bounds it is the
    /// timeouts of the calls it makes.
    ///
    /// - Throws: `CancellationError` when cancelled before `body` started;
    ///   ``ImageError/shutDown`` when the pool refuses late jobs and is shut
    ///   down; otherwise what `body` throws.
    package func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        let call = PendingRun<Value>()
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                guard call.register(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if !queue.push({ call.start(body) }) { call.refuse() }
            }
        } onCancel: {
            call.cancel()
        }
        call.observeHandOff()
        return value
    }

    /// Lets the threads end once the jobs queued are done, and returns at
    /// once. Calling it again does nothing more.
    package func shutdown() {
        queue.shutDown()
    }

    /// Shuts down (``shutdown()``) and returns once every thread has ended.
    /// Calling it again waits the same way.
    package func shutdownAndWait() async {
        queue.shutDown()
        await queue.waitForThreadsToEnd()
    }

    /// The kernel thread IDs (`/proc/self/task/<id>`) of the threads running now.
    package var kernelThreadIDs: Set<Int32> {
        queue.state.withLock { Set($0.running.map(\.kernelID)) }
    }

    /// Whether the caller runs on one of the pool's threads.
    package var isCurrentThread: Bool {
        let current = pthread_self()
        return queue.state.withLock { $0.running.contains { pthread_equal($0.thread, current) != 0 } }
    }

    /// Jobs queued and not yet taken by a thread, for tests.
    package var queuedJobCount: Int {
        queue.state.withLock { $0.jobs.count }
    }
}

extension DedicatedThreadPool {
    /// What the threads share with the pool.
    private final class JobQueue: Sendable {
        struct State {
            var jobs = Deque<@Sendable () -> Void>()
            var isShutDown = false
            /// Threads started and not yet ended.
            var threadCount = 0
            /// Threads waiting for a job and not yet signalled.
            var idleCount = 0
            /// The threads that have started running, as `pthread_equal` and `/proc` know them.
            var running: [(thread: pthread_t, kernelID: Int32)] = []
            /// ``DedicatedThreadPool/shutdownAndWait()`` calls waiting for the last thread to end.
            var endWaiters: [CheckedContinuation<Void, Never>] = []
        }

        let state = Lock(State())
        /// Signalled once for each idle thread a job or the shut-down takes
        /// off the idle count; so no signal is lost and none is surplus.
        let wakeUps = DispatchSemaphore(value: 0)
        let name: String
        let maxThreads: Int
        let nice: Int32
        let lateJobs: LateJobs

        init(name: String, maxThreads: Int, nice: Int32, lateJobs: LateJobs) {
            self.name = name
            self.maxThreads = maxThreads
            self.nice = nice
            self.lateJobs = lateJobs
        }

        func startAllThreads() {
            let count = state.withLock { state in
                defer { state.threadCount = maxThreads }
                return maxThreads - state.threadCount
            }
            for _ in 0..<count { startThread() }
        }

        /// Queues `job`; `false` (and the job dropped) when shut down and refusing.
        func push(_ job: @escaping @Sendable () -> Void) -> Bool {
            enum Action { case refuse, signal, startThread, none }
            let action = state.withLock { state -> Action in
                if state.isShutDown && lateJobs == .refuse { return .refuse }
                state.jobs.append(job)
                if state.idleCount > 0 {
                    state.idleCount -= 1
                    return .signal
                }
                // A busy thread takes it next: it looks at the queue, under
                // this lock, before it either waits or ends.
                guard state.threadCount < maxThreads else { return .none }
                state.threadCount += 1
                return .startThread
            }
            switch action {
            case .refuse: return false
            case .signal: wakeUps.signal()
            case .startThread: startThread()
            case .none: break
            }
            return true
        }

        func shutDown() {
            let idle = state.withLock { state -> Int in
                state.isShutDown = true
                defer { state.idleCount = 0 }
                return state.idleCount
            }
            for _ in 0..<idle { wakeUps.signal() }
        }

        func waitForThreadsToEnd() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ended = state.withLock { state -> Bool in
                    guard state.threadCount > 0 else { return true }
                    state.endWaiters.append(continuation)
                    return false
                }
                if ended { continuation.resume() }
            }
            // The last thread resumed the waiters after unlocking (see Lock).
            state.observeHandOff()
        }

        private func startThread() {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }

        private func run() {
            nameCurrentThread(name)
            let kernelID = currentKernelThreadID()
            if nice > 0 {
                // Per-thread on Linux: PRIO_PROCESS with a thread ID sets that
                // thread's nice value alone. Raising one's own nice value needs
                // no privilege; if it fails the jobs still run, at normal priority.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(kernelID), nice)
            }
            let current = pthread_self()
            state.withLock { $0.running.append((current, kernelID)) }
            while true {
                enum Next { case job(@Sendable () -> Void), wait, end([CheckedContinuation<Void, Never>]) }
                let next = state.withLock { state -> Next in
                    if let job = state.jobs.popFirst() { return .job(job) }
                    guard state.isShutDown else {
                        state.idleCount += 1
                        return .wait
                    }
                    // Ends under the lock: a job pushed after this sees one
                    // thread fewer and starts another if the policy lets it.
                    state.threadCount -= 1
                    state.running.removeAll { pthread_equal($0.thread, current) != 0 }
                    guard state.threadCount == 0 else { return .end([]) }
                    defer { state.endWaiters = [] }
                    return .end(state.endWaiters)
                }
                switch next {
                case .job(let job):
                    job()
                case .wait:
                    // Whoever signals has taken this thread off the idle count.
                    wakeUps.wait()
                case .end(let waiters):
                    for waiter in waiters { waiter.resume() }
                    return
                }
            }
        }
    }

    /// One ``DedicatedThreadPool/run(_:)`` call: whether its body started or
    /// its task was cancelled first, and the continuation the winner resumes.
    private final class PendingRun<Value: Sendable>: Sendable {
        enum State {
            case new
            case queued(CheckedContinuation<Value, any Error>)
            case started
            /// Cancelled, or refused by a pool shut down: the body will not run.
            case finished
        }

        private let state = Lock(State.new)

        /// Stores the continuation; `false` when the task was cancelled first.
        func register(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
            state.withLock { state in
                guard case .new = state else { return false }
                state = .queued(continuation)
                return true
            }
        }

        /// On a pool thread: runs `body` unless cancelled first.
        func start(_ body: () throws -> Value) {
            let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard case .queued(let continuation) = state else { return nil }
                state = .started
                return continuation
            }
            guard let continuation else { return }
            let outcome = Result { try body() }
            // Taking the lock after the body and before the resume gives the
            // caller's `observeHandOff` an edge ThreadSanitizer can see (the
            // runtime's own hand-off is invisible to it; see Lock).
            state.withLock { _ in }
            continuation.resume(with: outcome)
        }

        func cancel() {
            take()?.resume(throwing: CancellationError())
        }

        func refuse() {
            take()?.resume(throwing: ImageError.shutDown)
        }

        func observeHandOff() {
            state.observeHandOff()
        }

        /// Ends the call before its body started; the continuation to resume, if registered.
        private func take() -> CheckedContinuation<Value, any Error>? {
            state.withLock { state in
                switch state {
                case .new:
                    state = .finished
                    return nil
                case .queued(let continuation):
                    state = .finished
                    return continuation
                case .started, .finished:
                    return nil
                }
            }
        }
    }
}
