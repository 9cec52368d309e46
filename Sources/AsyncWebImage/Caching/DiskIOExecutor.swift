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
        }

        let state = Lock(State())
        /// Signalled once per job pushed and once at shut-down.
        let wakeUps = DispatchSemaphore(value: 0)

        func push(_ job: UnownedJob, on executor: UnownedSerialExecutor) {
            state.withLock { $0.jobs.append((job, executor)) }
            wakeUps.signal()
        }

        func shutDown() {
            state.withLock { $0.isShutDown = true }
            wakeUps.signal()
        }

        func run(name: String) {
            // Foundation's Thread.name does not reach the kernel here, and
            // pthread_setname_np is not imported; /proc/thread-self/comm is
            // what it writes (the kernel keeps 15 bytes). Best effort.
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                let bytes = Array(name.utf8.prefix(15))
                _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            state.withLock { $0.threadID = pthread_self() }
            while true {
                wakeUps.wait()
                let next: (job: UnownedJob, executor: UnownedSerialExecutor)?? = state.withLock { state in
                    if let next = state.jobs.popFirst() { return next }
                    return state.isShutDown ? .none : .some(nil)
                }
                guard let next else { return }
                // The job keeps its actor (and so this executor) alive while it runs.
                if let (job, executor) = next { job.runSynchronously(on: executor) }
            }
        }

        var isCurrentThread: Bool {
            state.withLock { state in state.threadID.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        }
    }

    private let queue = JobQueue()

    /// Starts the thread.
    ///
    /// - Parameter name: The thread's name, as debuggers and `top -H` show it.
    init(name: String) {
        let queue = self.queue
        let thread = Thread { queue.run(name: name) }
        thread.name = name
        thread.start()
    }

    deinit {
        queue.shutDown()
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
