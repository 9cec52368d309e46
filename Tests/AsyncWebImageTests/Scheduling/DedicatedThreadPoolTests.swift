import Dispatch
import Foundation
import Testing
@testable import AsyncWebImage

/// The package's one dedicated-thread primitive: names, order, concurrency,
/// shutdown and release, late jobs, and cancellation of `run`.
@Suite("DedicatedThreadPool", .timeLimit(.minutes(1)))
struct DedicatedThreadPoolTests {
    /// The kernel's name of the calling thread (the first 15 bytes of the name given).
    static func currentThreadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the thread `id` is alive in this process.
    static func isAlive(_ id: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/self/task/\(id)")
    }

    /// `count` jobs meet here: each waits (10 s at most) until all have arrived.
    final class Barrier: Sendable {
        private let arrived = Locked(0)
        private let released = DispatchSemaphore(value: 0)
        private let count: Int

        init(count: Int) { self.count = count }

        /// Whether every party arrived in time.
        func arriveAndWait() -> Bool {
            let last = arrived.withLock { value in
                value += 1
                return value == count
            }
            if last { for _ in 0..<count { released.signal() } }
            return released.wait(timeout: .now() + .seconds(10 * testTimeScale)) == .success
        }
    }

    @Test("a job runs on a thread of the pool's name, which the pool reports as its own, not on the caller's")
    func threadName() async throws {
        // Given a pool named awi-pool-name
        let pool = DedicatedThreadPool(name: "awi-pool-name")

        // When a job reports where it runs
        let seen = try await pool.run { (Self.currentThreadName(), currentKernelThreadID(), pool.isCurrentThread) }

        // Then it ran on the pool's thread, under its name
        #expect(seen.0 == "awi-pool-name")
        #expect(seen.2)
        #expect(pool.kernelThreadIDs == [seen.1])
        #expect(!pool.isCurrentThread)
        #expect(Self.currentThreadName() != "awi-pool-name")
        await pool.shutdownAndWait()
    }

    @Test("threads start with the first job unless eager; a nice value applies to each thread")
    func startAndNice() async throws {
        // Given a lazy pool and an eager one of 2 threads niced 7
        let lazy = DedicatedThreadPool(name: "awi-pool-lazy")
        let eager = DedicatedThreadPool(name: "awi-pool-eager", threadCount: 2, nice: 7, startsEagerly: true)

        // Then the lazy one has no thread before a job, the eager one both
        #expect(await eventually { eager.kernelThreadIDs.count == 2 })
        #expect(lazy.kernelThreadIDs.isEmpty)
        try await lazy.run {}
        #expect(lazy.kernelThreadIDs.count == 1)

        // And the eager one's threads run at nice 7 (field 19 of their stat)
        for id in eager.kernelThreadIDs {
            let stat = try String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8)
            let fields = stat[try #require(stat.range(of: ")", options: .backwards)).upperBound...].split(separator: " ")
            #expect(fields[16] == "7")
        }
        await lazy.shutdownAndWait()
        await eager.shutdownAndWait()
    }

    @Test("one thread runs 100 jobs in the order submitted")
    func firstInFirstOut() async {
        // Given a pool's one thread held by a job
        let pool = DedicatedThreadPool(name: "awi-pool-fifo")
        let gate = Gate()
        pool.submit { gate.wait() }
        #expect(await eventually { pool.queuedJobCount == 0 })
        let order = Locked([Int]())

        // When 100 jobs queue behind it and it is let go
        for index in 0..<100 { pool.submit { order.withLock { $0.append(index) } } }
        #expect(pool.queuedJobCount == 100)
        gate.open(1)
        await pool.shutdownAndWait()

        // Then they ran in that order
        #expect(order.value == Array(0..<100))
    }

    @Test("3 threads run 3 jobs at once (they meet at a barrier) and a 4th job only after, never 4 at once")
    func threadsRunConcurrently() async {
        // Given a pool of 3 threads
        let pool = DedicatedThreadPool(name: "awi-pool-three", threadCount: 3)
        let barrier = Barrier(count: 3)
        let met = Locked(0)
        let active = Locked((now: 0, most: 0))

        // When 4 jobs are submitted, the first 3 waiting for each other
        for index in 0..<4 {
            pool.submit {
                active.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                if index < 3, barrier.arriveAndWait() { met.withLock { $0 += 1 } }
                active.withLock { $0.now -= 1 }
            }
        }
        #expect(await eventually { met.value == 3 })
        #expect(pool.kernelThreadIDs.count == 3)
        await pool.shutdownAndWait()

        // Then all 3 met, and the 4th job ran on one of those threads afterwards
        #expect(met.value == 3)
        #expect(active.value.most == 3)
        #expect(active.value.now == 0)
    }

    @Test("shutdown runs the jobs queued before it, refuses later ones (submit false, run throws .shutDown), and shutdownAndWait returns once the thread has ended")
    func shutdownRefusesLateJobs() async throws {
        // Given 10 jobs queued behind a held thread
        let pool = DedicatedThreadPool(name: "awi-pool-stop")
        let gate = Gate()
        pool.submit { gate.wait() }
        #expect(await eventually { pool.queuedJobCount == 0 && pool.kernelThreadIDs.count == 1 })
        let thread = try #require(pool.kernelThreadIDs.first)
        let ran = Locked(0)
        for _ in 0..<10 { pool.submit { ran.withLock { $0 += 1 } } }

        // When the pool is shut down, then given more jobs
        pool.shutdown()
        let accepted = pool.submit { ran.withLock { $0 += 100 } }
        await #expect(throws: ImageError.shutDown) { try await pool.run { ran.withLock { $0 += 1_000 } } }
        gate.open(1)
        await pool.shutdownAndWait()

        // Then the 10 ran, the later ones did not, and the thread is gone
        #expect(!accepted)
        #expect(ran.value == 10)
        #expect(pool.kernelThreadIDs.isEmpty)
        #expect(await eventually { !Self.isAlive(thread) })
    }

    @Test("with late jobs run, a job after shutdown runs on a thread that then ends; the pool still answers")
    func lateJobsRun() async throws {
        // Given an eager pool of late-running policy, shut down and joined
        let pool = DedicatedThreadPool(name: "awi-pool-late", startsEagerly: true, lateJobs: .run)
        let first = try await pool.run { currentKernelThreadID() }
        await pool.shutdownAndWait()
        #expect(pool.kernelThreadIDs.isEmpty)

        // When jobs come after that
        let answer = try await pool.run { (Self.currentThreadName(), currentKernelThreadID()) }
        let accepted = pool.submit {}

        // Then they ran on a thread of the pool's name, which ends once the queue is dry
        #expect(answer.0 == "awi-pool-late")
        #expect(accepted)
        #expect(await eventually { pool.kernelThreadIDs.isEmpty && !Self.isAlive(answer.1) })
        // A thread leaves the pool's table before its start routine returns,
        // so its kernel task may outlive the join by a moment (the sibling
        // tests wait for it the same way).
        #expect(await eventually { !Self.isAlive(first) })
    }

    @Test("releasing the pool lets its queued jobs run, then its threads end")
    func releaseEndsThreads() async throws {
        // Given a pool of 2 threads, both held, with 20 jobs queued behind them
        let gate = Gate()
        let ran = Locked(0)
        var threads: Set<Int32> = []
        do {
            let pool = DedicatedThreadPool(name: "awi-pool-free", threadCount: 2)
            pool.submit { gate.wait() }
            pool.submit { gate.wait() }
            for _ in 0..<20 { pool.submit { ran.withLock { $0 += 1 } } }
            #expect(await eventually { pool.kernelThreadIDs.count == 2 })
            threads = pool.kernelThreadIDs
        }

        // When the pool has been released and the threads let go
        gate.open(2)

        // Then the 20 jobs run and both threads end
        #expect(await eventually { ran.value == 20 })
        #expect(await eventually { threads.allSatisfy { !Self.isAlive($0) } })
        #expect(ran.value == 20)
    }

    @Test("run returns the body's value and rethrows its error")
    func runResults() async throws {
        struct Failure: Error, Equatable {}
        let pool = DedicatedThreadPool(name: "awi-pool-run")
        let sum = try await pool.run { (1...100).reduce(0, +) }
        #expect(sum == 5_050)
        await #expect(throws: Failure()) { try await pool.run { throw Failure() } }
        await pool.shutdownAndWait()
    }

    @Test("a run cancelled before its body starts (already cancelled, or while queued) throws CancellationError; the body never runs")
    func cancelledRun() async throws {
        // Given a pool's one thread held
        let pool = DedicatedThreadPool(name: "awi-pool-cancel")
        let gate = Gate()
        pool.submit { gate.wait() }
        #expect(await eventually { pool.queuedJobCount == 0 })
        let ran = Locked(0)

        // When one run is cancelled while its job is queued, and another's task is cancelled before it calls run
        let queued = Task { try await pool.run { ran.withLock { $0 += 1 } } }
        #expect(await eventually { pool.queuedJobCount == 1 })
        queued.cancel()
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.run { ran.withLock { $0 += 10 } }
        }

        // Then both throw CancellationError at once, while the thread is still held
        await #expect(throws: CancellationError.self) { try await queued.value }
        await #expect(throws: CancellationError.self) { try await early.value }
        gate.open(1)
        await pool.shutdownAndWait()

        // And neither body ran
        #expect(ran.value == 0)
    }
}
