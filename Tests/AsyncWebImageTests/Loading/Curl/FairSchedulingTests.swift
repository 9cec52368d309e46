import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// A per-host limit and a queue that takes turns between hosts: one stalled
/// origin cannot hold every transfer slot.
@Suite("Fair scheduling", .timeLimit(.minutes(1)))
struct FairSchedulingTests {
    @Test("two hosts, one stalled: every load of the other completes, and the stalled one holds at most its limit")
    func stalledHost() async throws {
        // Given a host that never answers and a healthy one (two servers: two ports),
        // and a loader with 4 slots, at most 2 per host
        let stalled = try startedServer()
        defer { stalled.stop() }
        let healthy = try startedServer()
        defer { healthy.stop() }
        stalled.route("/s", .stall)
        let body = testBytes(20_000, seed: 31)
        healthy.route("/h", .ok(body))
        var configuration = CurlDataLoader.Configuration()
        configuration.maxConcurrentDownloads = 4
        configuration.maxConnectionsPerHost = 2
        configuration.timeout = .seconds(30)
        let loader = CurlDataLoader(configuration: configuration)

        // When 6 loads of the stalled host are queued first, then 10 of the healthy one
        let stuck = (0..<6).map { index in
            Task { try await loader.loadData(for: DataRequest(url: stalled.url("/s?\(index)"))).collect() }
        }
        #expect(await stalled.waitUntil("/s") { $0.requests == 2 })
        let loads = try await withThrowingTaskGroup(of: Data.self) { group in
            for index in 0..<10 {
                group.addTask { try await loader.loadData(for: DataRequest(url: healthy.url("/h?\(index)"))).collect().body }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then all 10 healthy loads completed while the stalled host held only 2 slots
        #expect(loads.count == 10)
        #expect(loads.allSatisfy { $0 == body })
        #expect(healthy.statistics("/h").requests == 10)
        #expect(stalled.statistics("/s").requests == 2)
        #expect(stalled.maxInFlight <= 2)
        for task in stuck { task.cancel() }
        for task in stuck { _ = await task.result }
        #expect(await eventually { loader.outstandingTransfers == 0 })
    }

    @Test("the queue passes over hosts at their limit without losing their places, and hosts take turns")
    func queueTurns() {
        // Given a, a, a, b, b waiting (FIFO, one priority)
        var queue = PendingQueue(order: .fifo)
        for (id, host) in [(1, "a"), (2, "a"), (3, "a"), (4, "b"), (5, "b")] {
            queue.push(UInt64(id), priority: .normal, host: host)
        }
        // When popped with every host eligible, hosts alternate
        #expect(queue.pop { _ in true } == 1)
        #expect(queue.pop { _ in true } == 4)
        #expect(queue.pop { _ in true } == 2)
        // and with a at its limit, b goes; then a's remaining entry is still first in line
        #expect(queue.pop { $0 != "a" } == 5)
        #expect(queue.pop { $0 != "a" } == nil)
        #expect(queue.pop { _ in true } == 3)
        #expect(queue.count == 0)
        #expect(queue.pop() == nil)
    }
}
