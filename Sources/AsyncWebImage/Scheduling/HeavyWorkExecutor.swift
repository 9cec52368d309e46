/// A task executor of a few dedicated threads of lower OS priority (a
/// positive nice value, per thread on Linux), on which a
/// ``ConcurrencyLimiter`` runs its heavy work.
///
/// Why threads of their own rather than the cooperative pool: a decode is one
/// synchronous call that cannot yield, and the pool has one thread per core,
/// so a multi-second decode there takes a core from every other task for its
/// whole length. On a niced thread the kernel's scheduler gives the core to
/// any runnable normal-priority thread first (nice 10 weighs about a tenth of
/// nice 0), so small decodes, the event loops and the transfer thread run as
/// if the heavy work were not there, and the heavy work takes the CPU nobody
/// else wants. The number of threads bounds the heavy work that can run at
/// once; the limiter's heavy lane admits no more bodies than that.
///
/// Jobs run first in, first out. Threads start on the first job and end when
/// the executor is released and its queue is empty.
final class HeavyWorkExecutor: TaskExecutor {
    private let threads: DedicatedThreadPool

    /// Creates the executor; its threads start with the first job.
    ///
    /// - Parameters:
    ///   - name: The threads' name, as `top -H` and debuggers show it.
    ///   - threadCount: The most threads, at least 1.
    ///   - nice: The threads' nice value (0 to 19; higher is lower priority).
    init(name: String, threadCount: Int, nice: Int32) {
        // A job never reaches a released executor; were one to, running it
        // beats dropping a task's job for good.
        threads = DedicatedThreadPool(name: name, threadCount: threadCount, nice: nice, lateJobs: .run)
    }

    /// The kernel thread IDs of the running threads (empty before the first job).
    var kernelThreadIDs: Set<Int32> { threads.kernelThreadIDs }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        threads.submit { job.runSynchronously(on: executor) }
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
