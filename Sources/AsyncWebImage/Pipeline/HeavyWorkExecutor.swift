import Dispatch
import Foundation
import DequeModule
import Synchronization
import AWILocking

#if canImport(Glibc)
import Glibc
#endif

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
    /// What the threads share with the executor; the threads hold only this,
    /// so releasing the executor lets them finish.
    private final class JobQueue: Sendable {
        struct State {
            var jobs = Deque<UnownedJob>()
            var isShutDown = false
            /// Threads started and not yet ended.
            var threadCount = 0
            /// Threads waiting for a job.
            var idleCount = 0
            /// Kernel thread IDs of the running threads (`/proc/self/task/<id>`), for tests.
            var kernelThreadIDs: Set<Int32> = []
        }

        let state = Lock(State())
        /// Signalled once per job pushed while a thread idles, and at shut-down.
        let wakeUps = DispatchSemaphore(value: 0)
        let name: String
        let maxThreads: Int
        let nice: Int32

        init(name: String, maxThreads: Int, nice: Int32) {
            self.name = name
            self.maxThreads = maxThreads
            self.nice = nice
        }

        func push(_ job: UnownedJob, executor: UnownedTaskExecutor) {
            enum Action { case signal, startThread, none }
            let action = state.withLock { state -> Action in
                state.jobs.append(job)
                if state.idleCount > 0 {
                    state.idleCount -= 1
                    return .signal
                }
                guard state.threadCount < maxThreads else { return .none } // a busy thread takes it next
                state.threadCount += 1
                return .startThread
            }
            switch action {
            case .signal: wakeUps.signal()
            case .startThread:
                let thread = Thread { [self] in run(executor: executor) }
                thread.name = name
                thread.start()
            case .none: break
            }
        }

        func shutDown() {
            let idle = state.withLock { state -> Int in
                state.isShutDown = true
                defer { state.idleCount = 0 }
                return state.idleCount
            }
            for _ in 0..<idle { wakeUps.signal() }
        }

        private func run(executor: UnownedTaskExecutor) {
            nameCurrentThread(name)
            let kernelThreadID = currentKernelThreadID()
            // Per-thread on Linux: PRIO_PROCESS with a thread ID sets that
            // thread's nice value alone. Raising one's own nice value needs no
            // privilege; if it fails the work still runs, at normal priority.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(kernelThreadID), nice)
            state.withLock { _ = $0.kernelThreadIDs.insert(kernelThreadID) }
            while true {
                enum Next { case job(UnownedJob), wait, end }
                let next = state.withLock { state -> Next in
                    if let job = state.jobs.popFirst() { return .job(job) }
                    if state.isShutDown {
                        state.threadCount -= 1
                        state.kernelThreadIDs.remove(kernelThreadID)
                        return .end
                    }
                    state.idleCount += 1
                    return .wait
                }
                switch next {
                case .job(let job):
                    job.runSynchronously(on: executor)
                case .wait:
                    // The pusher (or shut-down) took this thread off the idle count.
                    wakeUps.wait()
                case .end:
                    return
                }
            }
        }
    }

    private let queue: JobQueue

    /// Creates the executor; its threads start with the first job.
    ///
    /// - Parameters:
    ///   - name: The threads' name, as `top -H` and debuggers show it.
    ///   - threadCount: The most threads, at least 1.
    ///   - nice: The threads' nice value (0 to 19; higher is lower priority).
    init(name: String, threadCount: Int, nice: Int32) {
        queue = JobQueue(name: name, maxThreads: max(1, threadCount), nice: min(19, max(0, nice)))
    }

    deinit {
        queue.shutDown()
    }

    /// The kernel thread IDs of the running threads (empty before the first job).
    var kernelThreadIDs: Set<Int32> { queue.state.withLock { $0.kernelThreadIDs } }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job), executor: asUnownedTaskExecutor())
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
