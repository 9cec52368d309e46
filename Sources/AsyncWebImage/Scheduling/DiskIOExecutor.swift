/// A serial executor that runs every job on one dedicated thread, so an actor
/// using it may make blocking file system calls without stalling the
/// cooperative thread pool.
///
/// Why a dedicated thread rather than a pool the actor awaits: the store's
/// state and its files are touched by one thread at a time anyway (it is an
/// actor), a hop onto this thread costs one futex wake, and blocking calls made
/// here can never starve the pool's few threads (2 on a 2-core server) that
/// every other task in the process needs. The thread starts with the
/// executor and ends when the executor (that is, its actor) is released or
/// shut down; a job queued after that runs on a short-lived thread of its own.
final class DiskIOExecutor: SerialExecutor {
    private let thread: DedicatedThreadPool

    /// Starts the thread.
    ///
    /// - Parameter name: The thread's name, as debuggers and `top -H` show it.
    init(name: String) {
        thread = DedicatedThreadPool(name: name, startsEagerly: true, lateJobs: .run)
    }

    /// The kernel thread ID of the executor's thread (0 while none runs).
    var kernelThreadID: Int32 { thread.kernelThreadIDs.first ?? 0 }

    /// Ends the thread once the jobs queued are done; returns when it has
    /// ended. Jobs queued later run on a short-lived thread of their own, so
    /// a store used after its shutdown still answers.
    func shutDown() async {
        await thread.shutdownAndWait()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        // The job keeps its actor (and so this executor) alive while it runs.
        thread.submit { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(thread.isCurrentThread, "not on the disk store's I/O thread")
    }
}
