import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// The loader's byte budget for downloaded bodies (`bodyBudgetBytes`):
/// loads wait before downloading while the bodies held fill it, first in
/// first out; a body larger than the budget loads alone; what is held is
/// read from the budget's counters and the server's request counts.
@Suite("BodyByteBudget: downloaded bodies bounded in bytes", .timeLimit(.minutes(1)))
struct BodyByteBudgetTests {
    @Test("a reservation waits while the charges reach the limit, and starts when one is released")
    func waitsForRoom() async throws {
        // Given a budget of 1,000 bytes with one body of 600 held and one of 500 charged
        let budget = BodyByteBudget(limit: 1_000)
        let first = try await budget.reserve()
        budget.charge(first, bytes: 600)
        let second = try await budget.reserve()
        budget.charge(second, bytes: 500)
        #expect(budget.heldBytes == 1_100)

        // When a third load asks
        let third = Task { try await budget.reserve() }
        #expect(await eventually { budget.waitingCount == 1 })
        // Then it waits until one is released, and then holds the provisional charge
        budget.release(first)
        let reservation = try await third.value
        #expect(budget.waitingCount == 0)
        #expect(budget.heldBytes == 500 + BodyByteBudget.provisionalBytes(limit: 1_000))
        budget.release(second)
        budget.release(reservation)
        #expect(budget.heldBytes == 0 && budget.reservationCount == 0)
    }

    @Test("a body larger than the whole budget is admitted when nothing else is held")
    func oversizedBodyLoadsAlone() async throws {
        let budget = BodyByteBudget(limit: 100)
        let big = try await budget.reserve()
        budget.charge(big, bytes: 10_000)
        let next = Task { try await budget.reserve() }
        #expect(await eventually { budget.waitingCount == 1 })
        budget.release(big)
        let reservation = try await next.value
        #expect(budget.reservationCount == 1)
        budget.release(reservation)
    }

    @Test("while fewer loads than the minimum hold a reservation, a load starts whatever the bytes held")
    func minimumLoadsAlwaysStart() async throws {
        // Given a budget of 100 bytes that always admits two loads (two CPU permits)
        let budget = BodyByteBudget(limit: 100, minimumLoads: 2)
        let first = try await budget.reserve()
        budget.charge(first, bytes: 5_000)
        // Then a second starts although the first is 50 times the budget, and a third waits
        let second = try await budget.reserve()
        budget.charge(second, bytes: 5_000)
        let third = Task { try await budget.reserve() }
        #expect(await eventually { budget.waitingCount == 1 })
        #expect(budget.reservationCount == 2)
        budget.release(first)
        let reservation = try await third.value
        #expect(budget.reservationCount == 2 && budget.waitingCount == 0)
        budget.release(second)
        budget.release(reservation)
    }

    @Test("the loader's budget always admits one load per CPU permit")
    func loaderMinimumIsThePermits() throws {
        let harness = try PipelineHarness {
            $0.cpuLimiter = ConcurrencyLimiter(limit: 3, heavyThreadNice: nil)
            $0.bodyBudgetBytes = 1
        }
        #expect(harness.loader.bodyBudget?.minimumLoads == 3)
        #expect(harness.loader.bodyBudget?.limit == 1)
    }

    @Test("a charge that shrinks (the declared length below the provisional 1 MiB) lets the next load start")
    func shrinkingChargeAdmits() async throws {
        let budget = BodyByteBudget(limit: 1 << 20)
        let first = try await budget.reserve()
        let second = Task { try await budget.reserve() }
        #expect(await eventually { budget.waitingCount == 1 })
        budget.charge(first, bytes: 1_000)
        let reservation = try await second.value
        #expect(budget.heldBytes == 1_000 + (1 << 20))
        budget.release(first)
        budget.release(reservation)
    }

    @Test("the provisional charge follows released bodies (16 KiB to 1 MiB): after small bodies, many more loads may wait for their heads at once")
    func provisionalChargeLearns() async throws {
        let budget = BodyByteBudget(limit: 2 << 20)
        // Loads admitted one after another until the charges reach the limit.
        func admittedAtOnce() async throws -> Int {
            var held: [BodyByteBudget.Reservation] = []
            while budget.heldBytes < budget.limit && held.count < 1_000 { held.append(try await budget.reserve()) }
            for reservation in held { budget.release(reservation) }
            return held.count
        }
        // Before any body: 1 MiB each, two fill the 2 MiB budget
        #expect(budget.provisionalCharge == 1 << 20)
        #expect(try await admittedAtOnce() == 2)
        // Released without a measured size (a 304, a failure), they teach nothing
        #expect(budget.provisionalCharge == 1 << 20)

        // After twelve bodies of 10 KB
        for _ in 0..<12 {
            let reservation = try await budget.reserve()
            budget.charge(reservation, bytes: 10_000)
            budget.release(reservation)
        }
        let learned = budget.provisionalCharge
        #expect(learned >= 16 << 10 && learned < 64 << 10, "\(learned)")
        #expect(try await admittedAtOnce() >= 32)

        // One huge body raises it again, but never above 1 MiB
        let huge = try await budget.reserve()
        budget.charge(huge, bytes: 50 << 20)
        budget.release(huge)
        #expect(budget.provisionalCharge == 1 << 20)
        #expect(budget.heldBytes == 0 && budget.reservationCount == 0)
    }

    @Test("waiters start first in, first out, and a cancelled waiter leaves without holding anything")
    func fifoAndCancellation() async throws {
        let budget = BodyByteBudget(limit: 10)
        let held = try await budget.reserve()
        budget.charge(held, bytes: 10)
        let cancelled = Task { try await budget.reserve() }
        #expect(await eventually { budget.waitingCount == 1 })
        let later = Task { try await budget.reserve() }
        #expect(await eventually { budget.waitingCount == 2 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(budget.waitingCount == 1)
        budget.release(held)
        let reservation = try await later.value
        #expect(budget.reservationCount == 1 && budget.waitingCount == 0)
        budget.release(reservation)
        #expect(budget.heldBytes == 0)
    }

    @Test("loads waiting for a decode permit hold at most the budget's bodies; the rest wait before downloading")
    func loaderHoldsBodiesWithinBudget() async throws {
        // Given a loader with one CPU permit, held by the test, and a budget of one and a half bodies
        let png = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 64, value: 90), as: .png)
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let harness = try PipelineHarness {
            $0.cpuLimiter = limiter
            $0.bodyBudgetBytes = png.count * 3 / 2
        }
        let loader = harness.loader
        let budget = try #require(loader.bodyBudget)
        let urls = (0..<4).map { harness.serve("/\($0).png", png) }
        try await limiter.acquire()

        // When four loads of four images start
        let loads = urls.map { url in Task { try await loader.response(url, options: .fromLoaderOnly) } }

        // Then two bodies are downloaded and wait for the permit (the second
        // started while the first held less than the budget); the other two
        // loads wait before downloading, and the server saw two requests
        #expect(await eventually { limiter.waitingCount == 2 && budget.waitingCount == 2 })
        #expect(budget.heldBytes == 2 * png.count)
        #expect(loader.loadsHoldingBodies == 4)
        let requested = (0..<4).map { harness.requests("/\($0).png") }.reduce(0, +)
        #expect(requested == 2)

        // When the permit is given back, every load finishes and the budget empties
        limiter.release()
        for load in loads {
            let response = try await load.value
            #expect(response.image.width == 64)
        }
        #expect((0..<4).map { harness.requests("/\($0).png") }.reduce(0, +) == 4)
        #expect(budget.heldBytes == 0 && budget.reservationCount == 0)
        #expect(loader.loadsHoldingBodies == 0)
    }

    @Test("without a budget every load downloads while the permit is held (what the budget bounds)")
    func withoutBudgetEveryBodyIsHeld() async throws {
        let png = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 64, value: 90), as: .png)
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let harness = try PipelineHarness { $0.cpuLimiter = limiter }
        let loader = harness.loader
        #expect(loader.bodyBudget == nil)
        let urls = (0..<4).map { harness.serve("/\($0).png", png) }
        try await limiter.acquire()
        let loads = urls.map { url in Task { try await loader.response(url, options: .fromLoaderOnly) } }
        #expect(await eventually { limiter.waitingCount == 4 })
        #expect((0..<4).map { harness.requests("/\($0).png") }.reduce(0, +) == 4)
        limiter.release()
        for load in loads { _ = try await load.value }
    }
}
