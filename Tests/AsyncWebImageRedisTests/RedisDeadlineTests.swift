import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// Every command keeps a total deadline, and cancellation reaches it:
/// against a fake Redis that trickles its replies a byte at a time (slow,
/// never silent: what a per-read timeout never catches), and a real Redis
/// held by `CLIENT PAUSE`.
@Suite("RedisStore: deadlines and cancellation", .serialized, .timeLimit(.minutes(1)))
struct RedisDeadlineTests {
    @Test("a trickling Redis: 40 concurrent lookups all answered (misses) within the budget; the breaker opens and later lookups cost nothing")
    func tricklingRedis() async throws {
        let fake = try await TricklingRedis(interval: .milliseconds(10))
        var configuration = RedisStore.Configuration(endpoints: [.init(host: "127.0.0.1", port: fake.port)])
        configuration.lookupBudget = .milliseconds(150)
        configuration.failureThreshold = 3
        configuration.breakerCoolDown = .seconds(60)
        let store = try RedisStore(configuration: configuration)
        let clock = ContinuousClock()
        // When 40 lookups run at once
        let durations = await withTaskGroup(of: (Data?, Duration).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let started = clock.now
                    let data = await store.data(forKey: "k\(index)")
                    return (data, clock.now - started)
                }
            }
            return await group.reduce(into: [(Data?, Duration)]()) { $0.append($1) }
        }
        // Then every one is a miss, none later than the budget (plus scheduling slack)
        #expect(durations.count == 40)
        #expect(durations.allSatisfy { $0.0 == nil })
        let slowest = durations.map(\.1).max() ?? .zero
        #expect(slowest < .milliseconds(150) + .milliseconds(150).scaled, "slowest lookup \(slowest)")
        // And the breaker opened on the timeouts, as on a failing node
        let statistics = store.statistics
        #expect(statistics.breakerOpenings == 1)
        #expect(statistics.failures >= 3 && statistics.timeouts >= statistics.failures)
        // The pool's connections, plus those opened in the room of a failed
        // one before the breaker had opened
        #expect(fake.acceptedConnections <= configuration.connectionsPerEndpoint + configuration.failureThreshold - 1)
        // And later lookups are refused at once, without a connection
        let later = await clock.measure { for _ in 0..<100 { #expect(await store.data(forKey: "x") == nil) } }
        #expect(later < .milliseconds(50).scaled)
        #expect(store.statistics.skippedByBreaker >= 100)
        await fake.stop()
    }

    @Test("a write and a lease against a trickling Redis end within the command timeout; a lease wait polls within the budget and ends")
    func tricklingWrites() async throws {
        let fake = try await TricklingRedis(interval: .milliseconds(10))
        var configuration = RedisStore.Configuration(endpoints: [.init(host: "127.0.0.1", port: fake.port)])
        configuration.commandTimeout = .milliseconds(120)
        configuration.lookupBudget = .milliseconds(120)
        let store = try RedisStore(configuration: configuration)
        let clock = ContinuousClock()
        let write = await clock.measure {
            await #expect(throws: ImageError.self) { try await store.setData(Data([1]), forKey: "k", extendedData: nil) }
        }
        let lease = await clock.measure { #expect(await store.acquireLease(forKey: "k") == .unavailable) }
        let wait = try await clock.measure {
            let outcome = try await store.waitForEntry(forKey: "k", pollInterval: .milliseconds(10), timeout: .seconds(30))
            guard case .unavailable = outcome else { Issue.record("expected unavailable, got \(outcome)"); return }
        }
        for elapsed in [write, lease, wait] { #expect(elapsed < .milliseconds(120) + .milliseconds(200).scaled) }
        await fake.stop()
    }

    @Test("cancellation reaches a command in flight: a lookup held by CLIENT PAUSE ends at once when its task is cancelled")
    func cancellationReachesTheCommand() async throws {
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.lookupBudget = .seconds(30)
        let store = try RedisStore(configuration: configuration)
        try await store.setData(Data([1]), forKey: "k", extendedData: nil)
        // Given Redis holds every command (reads too; and every client's,
        // so the pause is short and left to end by itself)
        #expect(try await server.command(["CLIENT", "PAUSE", "1500", "ALL"]) == .status("OK"))
        let lookup = Task { await store.data(forKey: "k") }
        #expect(await eventually { store.statistics.connectionsOpened >= 1 })
        try await Task.sleep(for: .milliseconds(50))
        // When the caller is cancelled
        let clock = ContinuousClock()
        let started = clock.now
        lookup.cancel()
        // Then the lookup ends at once, a miss, and the node is not blamed
        #expect(await lookup.value == nil)
        #expect(clock.now - started < .milliseconds(200).scaled)
        #expect(store.statistics.failures == 0 && store.statistics.breakerOpenings == 0)
        try await Task.sleep(for: .milliseconds(1500))
        #expect(await store.data(forKey: "k") == Data([1]))
    }

    @Test("a lookup waiting for a connection keeps its budget: with one connection held by a paused Redis, the queued lookups end at the budget")
    func queuedLookupsKeepTheBudget() async throws {
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.lookupBudget = .milliseconds(150)
        configuration.connectionsPerEndpoint = 1
        configuration.failureThreshold = 100
        let store = try RedisStore(configuration: configuration)
        _ = await store.data(forKey: "warm")
        #expect(try await server.command(["CLIENT", "PAUSE", "600", "ALL"]) == .status("OK"))
        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<10 { group.addTask { #expect(await store.data(forKey: "q\(index)") == nil) } }
            }
        }
        #expect(elapsed < .milliseconds(150) + .milliseconds(200).scaled)
        // Each lookup timed out: on the node (the one holding the
        // connection, and any that took its room in time) or in line
        #expect(store.statistics.timeouts == 10)
        #expect((1...10).contains(store.statistics.failures))
    }
}
