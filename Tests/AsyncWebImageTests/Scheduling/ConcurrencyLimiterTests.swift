import Foundation
import Testing
@testable import AsyncWebImage
import AWILocking

@Suite("ConcurrencyLimiter", .timeLimit(.minutes(1)))
struct ConcurrencyLimiterTests {
    @Test("never more than the limit hold a permit at once")
    func bounded() async throws {
        // Given a limit of 3 and 40 tasks that each hold a permit briefly
        let limiter = ConcurrencyLimiter(limit: 3)
        let counts = Locked((current: 0, peak: 0, done: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await limiter.withPermit {
                        counts.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) }
                        await Task.yield()
                        counts.withLock { $0.current -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Then all ran, the peak is the limit at most, and every permit is back
        let final = counts.withLock { $0 }
        #expect(final.done == 40)
        #expect(final.peak <= 3)
        #expect(limiter.availablePermits == 3)
        #expect(limiter.waitingCount == 0)
    }

    @Test("waiters are served first in, first out")
    func fifo() async throws {
        // Given the only permit held and five waiters queued one after another
        let limiter = ConcurrencyLimiter(limit: 1)
        try await limiter.acquire()
        let order = Locked<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<5 {
            tasks.append(Task {
                try await limiter.acquire()
                order.withLock { $0.append(index) }
                limiter.release()
            })
            #expect(await eventually { limiter.waitingCount == index + 1 })
        }
        // When the permit is released
        limiter.release()
        for task in tasks { try await task.value }
        // Then they ran in arrival order
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
        #expect(limiter.availablePermits == 1)
    }

    @Test("a cancelled waiter leaves the queue with CancellationError and takes no permit")
    func cancellation() async throws {
        // Given the only permit held and two waiters
        let limiter = ConcurrencyLimiter(limit: 1)
        try await limiter.acquire()
        let cancelled = Task { try await limiter.acquire() }
        #expect(await eventually { limiter.waitingCount == 1 })
        let served = Task { try await limiter.withPermit { 42 } }
        #expect(await eventually { limiter.waitingCount == 2 })
        // When the first waiter is cancelled
        cancelled.cancel()
        // Then it throws CancellationError and leaves the queue
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(limiter.waitingCount == 1)
        // And when the permit is released, the second waiter gets it, then gives it back
        limiter.release()
        #expect(try await served.value == 42)
        #expect(limiter.availablePermits == 1)
    }

    @Test("a task cancelled before it waits throws at once")
    func cancelledBeforeWaiting() async throws {
        let limiter = ConcurrencyLimiter(limit: 1)
        try await limiter.acquire()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limiter.acquire()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(limiter.waitingCount == 0)
        limiter.release()
        #expect(limiter.availablePermits == 1)
    }

    @Test("a cancelled task gets no permit even when one is free")
    func cancelledWithFreePermit() async {
        let limiter = ConcurrencyLimiter(limit: 2)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limiter.withPermit { Issue.record("body ran in a cancelled task") }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(limiter.availablePermits == 2)
    }

    @Test("the default limit is the number of cores the process may use, no more than the active processors")
    func defaultLimit() {
        #expect(ConcurrencyLimiter().limit == AvailableCores.count)
        #expect(ConcurrencyLimiter().limit <= ProcessInfo.processInfo.activeProcessorCount)
        #expect(ConcurrencyLimiter(limit: 0).limit == 1)
    }

    @Test("on the cooperative pool (no niced threads), heavy work holds at most heavyLimit permits; light work passes it while it waits")
    func heavyLane() async throws {
        // Given 2 permits (heavy work: 1 of them) and one heavy body held open
        let limiter = ConcurrencyLimiter(limit: 2, heavyThreadNice: nil)
        #expect(limiter.heavyLimit == 1)
        let (firstGate, openFirst) = AsyncStream<Void>.makeStream()
        let started = Locked([String]())
        let first = Task {
            try await limiter.withPermit(heavy: true) {
                started.withLock { $0.append("heavy-1") }
                for await _ in firstGate { break }
            }
        }
        #expect(await pipelineEventually { started.withLock { $0 } == ["heavy-1"] })
        // When a second heavy body and then a light one ask
        let second = Task { try await limiter.withPermit(heavy: true) { started.withLock { $0.append("heavy-2") } } }
        try await Task.sleep(for: .milliseconds(50))
        try await limiter.withPermit(heavy: false) { started.withLock { $0.append("light") } }
        // Then the light one ran at once and the second heavy one still waits,
        // holding no normal permit
        #expect(started.withLock { $0 } == ["heavy-1", "light"])
        #expect(limiter.availablePermits == 1)
        // And it runs once the first heavy body ends
        openFirst.yield()
        try await first.value
        try await second.value
        #expect(started.withLock { $0 } == ["heavy-1", "light", "heavy-2"])
        #expect(limiter.availablePermits == 2)
    }

    @Test("heavyLimit defaults to half the permits, at least 1, at most all; isHeavy compares declared pixels")
    func heavyDefaults() {
        #expect(ConcurrencyLimiter(limit: 1).heavyLimit == 1)
        #expect(ConcurrencyLimiter(limit: 8).heavyLimit == 4)
        #expect(ConcurrencyLimiter(limit: 4, heavyLimit: 9).heavyLimit == 4)
        let limiter = ConcurrencyLimiter(limit: 2, heavyPixelCount: 100)
        #expect(limiter.isHeavy(PixelSize(width: 11, height: 10)))
        #expect(!limiter.isHeavy(PixelSize(width: 10, height: 10)))
        #expect(!limiter.isHeavy(nil))
        #expect(limiter.heavyThreadNice == 10)
        #expect(ConcurrencyLimiter(heavyThreadNice: 40).heavyThreadNice == 19)
        #expect(ConcurrencyLimiter(heavyThreadNice: -5).heavyThreadNice == 0)
        #expect(ConcurrencyLimiter(heavyThreadNice: nil).heavyThreadNice == nil)
    }
}
