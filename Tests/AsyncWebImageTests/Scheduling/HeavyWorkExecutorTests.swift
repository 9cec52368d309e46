import Foundation
import Synchronization
import Testing
@testable import AsyncWebImage

#if canImport(Glibc)
import Glibc
import AsyncWebImageAllFormats
#endif

/// Heavy work on the limiter's threads of lower OS priority: where it runs,
/// what it holds, and that normal work overtakes it on a busy machine.
@Suite("Heavy work on niced threads", .timeLimit(.minutes(2)))
struct HeavyWorkExecutorTests {
    /// A thread's nice value: field 19 of `/proc/self/task/<tid>/stat`
    /// (counted after the parenthesised name, which may hold spaces).
    static func nice(ofThread tid: Int32) throws -> Int {
        try nice(inStat: "/proc/self/task/\(tid)/stat")
    }

    static func nice(inStat path: String) throws -> Int {
        let stat = try String(contentsOfFile: path, encoding: .utf8)
        let afterName = try #require(stat.range(of: ")", options: .backwards)).upperBound
        let fields = stat[afterName...].split(separator: " ")
        // fields[0] is field 3 (state), so field 19 is fields[16].
        return try #require(Int(fields[16]))
    }

    static func currentThreadName() throws -> String {
        try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a heavy body runs on an awi-heavy thread of nice 10; a light one on the pool at the process's priority")
    func heavyBodyRunsOnNicedThread() async throws {
        // Given the default limiter settings with 2 permits
        let limiter = ConcurrencyLimiter(limit: 2)
        let executor = try #require(limiter.heavyExecutor)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let seen = Locked<(tid: Int32, nice: Int, name: String)?>(nil)

        // When a heavy body runs (and waits, holding its thread's turn)
        let heavy = Task {
            try await limiter.withPermit(heavy: true) {
                let tid = currentKernelThreadID()
                let nice = try Self.nice(inStat: "/proc/thread-self/stat")
                seen.withLock { $0 = (tid, nice, try! Self.currentThreadName()) }
                for await _ in gate { break }
            }
        }
        #expect(await pipelineEventually { seen.withLock { $0 } != nil })
        let inside = try #require(seen.withLock { $0 })

        // Then its thread is niced 10, as seen from inside and from /proc/self/task/<tid>
        #expect(inside.nice == 10)
        #expect(inside.name == "awi-heavy")
        #expect(executor.kernelThreadIDs.contains(inside.tid))
        #expect(try Self.nice(ofThread: inside.tid) == 10)

        // And a light body runs elsewhere, at the main thread's nice value
        let light: (tid: Int32, nice: Int) = try await limiter.withPermit(heavy: false) {
            (currentKernelThreadID(), try Self.nice(inStat: "/proc/thread-self/stat"))
        }
        #expect(light.tid != inside.tid)
        #expect(light.nice == (try Self.nice(inStat: "/proc/self/stat")))
        #expect(light.nice < 10)
        open.yield()
        try await heavy.value
    }

    @Test("heavy bodies hold no normal permit: with 1 permit a light body runs while a heavy one does, and the lane admits one heavy body")
    func heavyHoldsNoNormalPermit() async throws {
        // Given 1 permit (so heavyLimit 1) and a heavy body held open
        let limiter = ConcurrencyLimiter(limit: 1, heavyPixelCount: 100)
        #expect(limiter.heavyLimit == 1)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let order = Locked([String]())
        let first = Task {
            try await limiter.withPermit(heavy: true) {
                order.withLock { $0.append("heavy-1") }
                for await _ in gate { break }
                order.withLock { $0.append("heavy-1 done") }
            }
        }
        #expect(await pipelineEventually { order.withLock { $0 } == ["heavy-1"] })
        #expect(limiter.availablePermits == 1)
        #expect(limiter.availableHeavyPermits == 0)

        // When a second heavy body and a light one ask
        let second = Task { try await limiter.withPermit(heavy: true) { order.withLock { $0.append("heavy-2") } } }
        #expect(await pipelineEventually { limiter.heavyWaitingCount == 1 })
        try await limiter.withPermit(heavy: false) { order.withLock { $0.append("light") } }

        // Then the light one ran at once, the second heavy one waits for the lane
        #expect(order.withLock { $0 } == ["heavy-1", "light"])
        open.yield()
        try await first.value
        try await second.value
        #expect(order.withLock { $0 } == ["heavy-1", "light", "heavy-1 done", "heavy-2"])
        #expect(limiter.availablePermits == 1)
        #expect(limiter.availableHeavyPermits == 1)
    }

    @Test("a task cancelled while it waits for the heavy lane leaves with CancellationError; its body never runs")
    func cancelledWhileWaitingForTheLane() async throws {
        // Given the lane's one permit held
        let limiter = ConcurrencyLimiter(limit: 2)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task { try await limiter.withPermit(heavy: true) { for await _ in gate { break } } }
        #expect(await pipelineEventually { limiter.availableHeavyPermits == 0 })
        let ran = Locked(false)
        let waiter = Task { try await limiter.withPermit(heavy: true) { ran.withLock { $0 = true } } }
        #expect(await pipelineEventually { limiter.heavyWaitingCount == 1 })

        // When the waiting task is cancelled
        waiter.cancel()

        // Then it leaves at once (the holder still runs), and its body never runs
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limiter.heavyWaitingCount == 0)
        open.yield()
        try await holder.value
        #expect(!ran.withLock { $0 })
        #expect(limiter.availableHeavyPermits == 1)
    }

    @Test("on a machine busy at normal priority, a light decode finishes while a heavy one (started first, 1 permit) still runs")
    func lightDecodeOvertakesHeavyOnBusyMachine() async throws {
        // Given a limiter of 1 permit that counts 10,000 pixels as heavy, a
        // cache using it, and every core busy with normal-priority threads
        let limiter = ConcurrencyLimiter(limit: 1, heavyPixelCount: 10_000)
        let large = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 2_500), as: .png)
        let small = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 64, value: 9), as: .png)
        let stop = Locked(false)
        let deadline = Date().addingTimeInterval(60)
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            Thread {
                while !stop.withLock({ $0 }) && Date() < deadline {
                    var sum = 0
                    for value in 0..<200_000 { sum &+= value }
                    withExtendedLifetime(sum) {}
                }
            }.start()
        }
        defer { stop.withLock { $0 = true } }
        let order = Locked([String]())

        // When the large image starts decoding, then the small one is decoded
        let heavy = Task {
            let image = try await ImageCoderRegistry.allFormats.decode(large, options: .init(), limiter: limiter)
            order.withLock { $0.append("heavy") }
            return image
        }
        #expect(await pipelineEventually { limiter.availableHeavyPermits == 0 })
        let light = try await ImageCoderRegistry.allFormats.decode(small, options: .init(), limiter: limiter)
        order.withLock { $0.append("light") }
        stop.withLock { $0 = true }

        // Then the small one finished first, and the large one finishes too
        #expect(light.size == PixelSize(width: 64, height: 64))
        #expect(light.pixels.first == 9)
        let decoded = try await heavy.value
        #expect(decoded.size == PixelSize(width: 2_500, height: 2_500))
        #expect(order.withLock { $0 } == ["light", "heavy"])
    }
}
