import Dispatch
import Foundation
import DequeModule
import Synchronization
import AWILocking

#if canImport(Glibc)
import Glibc
#endif

/// A serial executor that runs every job on one dedicated thread, so an actor
/// using it may make blocking file system calls without stalling the
/// cooperative thread pool.
///
/// Why a dedicated thread rather than a pool the actor awaits: the store's
/// state and its files are touched by one thread at a time anyway (it is an
/// actor), a hop onto this thread costs one futex wake, and blocking calls made
/// here can never starve the pool's few threads (2 on a 2-core server) that
/// every other task in the process needs. The thread ends when the executor
/// (that is, its actor) is released.
final class DiskIOExecutor: SerialExecutor {
    /// What the thread shares with the executor; the thread holds only this,
    /// so releasing the executor lets the thread finish.
    private final class JobQueue: Sendable {
        struct State {
            var jobs = Deque<(job: UnownedJob, executor: UnownedSerialExecutor)>()
            var isShutDown = false
            var threadID: pthread_t?
            /// Whether a thread serves the queue now (at most one at a time).
            var threadRunning = false
            /// The kernel thread ID of the latest thread (`/proc/self/task/<id>`), for tests.
            var kernelThreadID: Int32 = 0
            /// Waiters for the thread's end after shut-down.
            var endWaiters: [CheckedContinuation<Void, Never>] = []
        }

        let state = Lock(State())
        /// Signalled once per job pushed to a running thread and once at shut-down.
        let wakeUps = DispatchSemaphore(value: 0)
        let name: String

        init(name: String) {
            self.name = name
        }

        /// Queues a job. After shut-down, a job finds no thread: a new one
        /// starts, runs the queue dry and ends, so a store used after
        /// ``DiskStore/shutdown()`` still answers, and leaves no thread behind.
        func push(_ job: UnownedJob, on executor: UnownedSerialExecutor) {
            let startThread = state.withLock { state -> Bool in
                state.jobs.append((job, executor))
                guard !state.threadRunning else { return false }
                state.threadRunning = true
                return true
            }
            if startThread { self.startThread() } else { wakeUps.signal() }
        }

        func startThread() {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }

        /// Lets the thread end once the queue is empty; returns when it has.
        func shutDown() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ended = state.withLock { state -> Bool in
                    state.isShutDown = true
                    guard state.threadRunning else { return true }
                    state.endWaiters.append(continuation)
                    return false
                }
                if ended { continuation.resume() } else { wakeUps.signal() }
            }
        }

        func run() {
            nameCurrentThread(name)
            let kernelThreadID = currentKernelThreadID()
            state.withLock {
                $0.threadID = pthread_self()
                $0.kernelThreadID = kernelThreadID
            }
            while true {
                enum Next { case job(UnownedJob, UnownedSerialExecutor), wait, end([CheckedContinuation<Void, Never>]) }
                let next = state.withLock { state -> Next in
                    if let (job, executor) = state.jobs.popFirst() { return .job(job, executor) }
                    guard state.isShutDown else { return .wait }
                    // Ends under the lock: a job pushed after this starts a new thread.
                    state.threadRunning = false
                    state.threadID = nil
                    defer { state.endWaiters = [] }
                    return .end(state.endWaiters)
                }
                switch next {
                case .job(let job, let executor):
                    // The job keeps its actor (and so this executor) alive while it runs.
                    job.runSynchronously(on: executor)
                case .wait:
                    // Surplus signals (one per push while jobs were queued) only cost a re-check.
                    wakeUps.wait()
                case .end(let waiters):
                    for waiter in waiters { waiter.resume() }
                    return
                }
            }
        }

        var isCurrentThread: Bool {
            state.withLock { state in state.threadID.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        }
    }

    private let queue: JobQueue

    /// Starts the thread.
    ///
    /// - Parameter name: The thread's name, as debuggers and `top -H` show it.
    init(name: String) {
        queue = JobQueue(name: name)
        queue.state.withLock { $0.threadRunning = true }
        queue.startThread()
    }

    deinit {
        queue.state.withLock { $0.isShutDown = true }
        queue.wakeUps.signal()
    }

    /// The kernel thread ID of the executor's latest thread (0 before it runs).
    var kernelThreadID: Int32 { queue.state.withLock { $0.kernelThreadID } }

    /// Ends the thread once the jobs queued are done; returns when it has
    /// ended. Jobs queued later run on a short-lived thread of their own.
    func shutDown() async {
        await queue.shutDown()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job), on: asUnownedSerialExecutor())
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(queue.isCurrentThread, "not on the disk store's I/O thread")
    }
}
