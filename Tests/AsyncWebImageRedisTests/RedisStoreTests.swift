import Foundation
import Logging
import Testing
import Synchronization
import AWILocking
@testable import AsyncWebImage
@testable import AsyncWebImageRedis
#if canImport(Glibc)
import Glibc
#endif

@Suite("RedisStore", .serialized, .timeLimit(.minutes(2)))
struct RedisStoreTests {
    private func configuration(_ servers: RedisServer..., prefix: String = "t:") -> RedisStore.Configuration {
        var configuration = RedisStore.Configuration(endpoints: servers.map(\.endpoint))
        configuration.keyPrefix = prefix
        return configuration
    }

    private func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test("data and extended data round-trip; nil and empty extended data stay apart; remove and contains")
    func roundTrip() async throws {
        // Given a real Redis and a store on it
        let server = try await RedisServer()
        let store = try RedisStore(configuration: configuration(server))
        let image = bytes(100_000, seed: 7)
        // When entries are written with, without and with empty extended data
        try await store.setData(image, forKey: "https://a.example/1.jpg", extendedData: Data("etag-1".utf8))
        try await store.setData(Data([1, 2, 3]), forKey: "k-nil", extendedData: nil)
        try await store.setData(Data([4]), forKey: "k-empty", extendedData: Data())
        // Then each reads back exactly
        let entry = try #require(await store.dataWithExtendedData(forKey: "https://a.example/1.jpg"))
        #expect(entry.data == image)
        #expect(entry.extendedData == Data("etag-1".utf8))
        #expect(await store.dataWithExtendedData(forKey: "k-nil")?.extendedData == nil)
        #expect(await store.dataWithExtendedData(forKey: "k-empty")?.extendedData == Data())
        #expect(await store.contains("k-nil"))
        #expect(await store.data(forKey: "absent") == nil)
        try await store.removeData(forKey: "k-nil")
        #expect(await !store.contains("k-nil"))
        // And the server holds one value per entry, under the prefix, with a TTL
        #expect(try await server.command(["DBSIZE"]) == .integer(2))
        let name = "t:{" + SHA256.hexDigest("k-empty") + "}:v"
        guard case .integer(let ttl) = try await server.command(["PTTL", name]) else { Issue.record("no TTL"); return }
        #expect(ttl > 6 * 24 * 3600 * 1000)
        let statistics = store.statistics
        #expect(statistics.hits == 3 && statistics.misses == 1 && statistics.writes == 3)
    }

    @Test("a second store (another server of the fleet) reads what the first wrote")
    func sharedBetweenStores() async throws {
        let server = try await RedisServer()
        let first = try RedisStore(configuration: configuration(server))
        let second = try RedisStore(configuration: configuration(server))
        try await first.setData(bytes(5000, seed: 1), forKey: "shared", extendedData: nil)
        #expect(await second.data(forKey: "shared") == bytes(5000, seed: 1))
        #expect(second.statistics.hits == 1)
    }

    @Test("a value over the cap skips the tier and is not an error")
    func oversized() async throws {
        let server = try await RedisServer()
        var configuration = configuration(server)
        configuration.maxValueBytes = 4096
        let store = try RedisStore(configuration: configuration)
        try await store.setData(bytes(5000, seed: 2), forKey: "big", extendedData: nil)
        try await store.setData(bytes(3000, seed: 2), forKey: "small", extendedData: nil)
        #expect(await !store.contains("big"))
        #expect(await store.contains("small"))
        #expect(store.statistics.oversized == 1)
        #expect(try await server.command(["DBSIZE"]) == .integer(1))
    }

    @Test("entries expire with their time to live")
    func expiry() async throws {
        let server = try await RedisServer()
        var configuration = configuration(server)
        configuration.timeToLive = .milliseconds(300)
        let store = try RedisStore(configuration: configuration)
        try await store.setData(Data([9]), forKey: "short", extendedData: nil)
        #expect(await store.contains("short"))
        #expect(try await eventually(attempts: 300) {
            try await Task.sleep(for: .milliseconds(10))
            return await !store.contains("short")
        })
    }

    @Test("a value that is not a whole entry of the key asked for is a miss: garbage, a truncated entry, another key's entry")
    func integrity() async throws {
        let server = try await RedisServer()
        let store = try RedisStore(configuration: configuration(server))
        try await store.setData(bytes(1000, seed: 3), forKey: "a", extendedData: Data("x".utf8))
        let nameA = "t:{" + SHA256.hexDigest("a") + "}:v"
        let nameB = "t:{" + SHA256.hexDigest("b") + "}:v"
        guard let value = try await server.command(["GET", nameA]).bulkBytes else { Issue.record("no value"); return }
        // Another key's whole entry copied under b's name
        _ = try await server.command([Array("SET".utf8), Array(nameB.utf8), value])
        #expect(await store.data(forKey: "b") == nil)
        // a truncated by one byte
        _ = try await server.command([Array("SET".utf8), Array(nameA.utf8), Array(value.dropLast())])
        #expect(await store.data(forKey: "a") == nil)
        // garbage
        _ = try await server.command(["SET", nameA, "not an entry"])
        #expect(await store.data(forKey: "a") == nil)
        #expect(store.statistics.misses == 3 && store.statistics.hits == 0)
    }

    @Test("writes that come together are pipelined: 63 writes queued behind a flush in flight go out in one batch")
    func pipelinedWrites() async throws {
        // Given a store with one connection, and a Redis that holds every
        // write until told (CLIENT PAUSE … WRITE): the first flush stays in
        // flight for as long as the test needs, whatever the scheduling.
        // (Timing alone is not enough: under ThreadSanitizer on a busy
        // machine each write could finish before the next one arrived.)
        let server = try await RedisServer()
        var configuration = configuration(server)
        configuration.connectionsPerEndpoint = 1
        configuration.commandTimeout = .seconds(30)
        let store = try RedisStore(configuration: configuration)
        let node = try #require(store.independentNodes.first)
        #expect(try await server.command(["CLIENT", "PAUSE", "60000", "WRITE"]) == .status("OK"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.setData(Data([0]), forKey: "p0", extendedData: nil) }
            // When the first write's batch is out (held by Redis) and 63
            // more writes have queued behind it
            #expect(await eventually { store.statistics.writeBatches == 1 })
            for index in 1..<64 {
                group.addTask { try await store.setData(Data([UInt8(index)]), forKey: "p\(index)", extendedData: nil) }
            }
            #expect(await eventually { node.state.withLock { $0.pendingWrites.count } == 63 })
            #expect(try await server.command(["DBSIZE"]) == .integer(0))
            #expect(try await server.command(["CLIENT", "UNPAUSE"]) == .status("OK"))
            try await group.waitForAll()
        }
        // Then all are stored, in exactly two round trips
        #expect(try await server.command(["DBSIZE"]) == .integer(64))
        for index in [0, 1, 31, 63] {
            #expect(await store.data(forKey: "p\(index)") == Data([UInt8(index)]))
        }
        let statistics = store.statistics
        #expect(statistics.writes == 64)
        #expect(statistics.writeBatches == 2)
    }

    @Test("Redis killed mid-run: reads are misses, writes throw sharedCache, the breaker opens and later calls cost no connection; a restarted node is used again")
    func deadNode() async throws {
        let server = try await RedisServer()
        let port = server.port
        var configuration = configuration(server)
        configuration.failureThreshold = 2
        configuration.breakerCoolDown = .milliseconds(300)
        let logs = RecordingLogHandlerStore()
        configuration.logger = logs.logger()
        let store = try RedisStore(configuration: configuration)
        try await store.setData(Data([1]), forKey: "before", extendedData: nil)
        server.stop()
        // When: reads and a write against the dead node
        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            for _ in 0..<20 { #expect(await store.data(forKey: "before") == nil) }
        }
        await #expect(throws: ImageError.self) { try await store.setData(Data([2]), forKey: "after", extendedData: nil) }
        // Then: every read was a miss, quickly; the breaker opened after 2 failures
        let statistics = store.statistics
        #expect(elapsed < .seconds(2).scaled)
        #expect(statistics.breakerOpenings >= 1)
        #expect(statistics.failures <= 3)
        #expect(statistics.skippedByBreaker >= 17)
        // And each opening was a warning, each failure a debug line
        let openings = logs.lines.filter { $0.level == .warning && $0.message.hasPrefix("shared tier breaker opened") }
        #expect(openings.count == statistics.breakerOpenings)
        #expect(logs.lines("shared tier request failed").count == statistics.failures)
        // And after the cool-down, a probe finds the node back
        let restarted = try await RedisServer(port: port)
        try await Task.sleep(for: .milliseconds(350))
        #expect(try await eventually(attempts: 100) {
            try? await store.setData(Data([3]), forKey: "again", extendedData: nil)
            try await Task.sleep(for: .milliseconds(20))
            return await store.data(forKey: "again") == Data([3])
        })
        #expect(try await restarted.command(["EXISTS", "t:{" + SHA256.hexDigest("again") + "}:v"]) == .integer(1))
    }

    @Test("a node that accepts but never answers: each call ends within the command timeout, then the breaker makes them free")
    func hangingNode() async throws {
        let (fd, port) = try LoopbackPort.listeningSocket()
        defer { close(fd) }
        var configuration = RedisStore.Configuration(endpoints: [.init(host: "127.0.0.1", port: port)])
        configuration.lookupBudget = .milliseconds(100)
        configuration.failureThreshold = 2
        configuration.breakerCoolDown = .seconds(60)
        let store = try RedisStore(configuration: configuration)
        let clock = ContinuousClock()
        let first = await clock.measure { #expect(await store.data(forKey: "x") == nil) }
        #expect(first >= .milliseconds(90) && first < .milliseconds(100) + .seconds(1).scaled)
        _ = await store.data(forKey: "x")
        let later = await clock.measure {
            for _ in 0..<100 { _ = await store.data(forKey: "x") }
        }
        #expect(later < .milliseconds(100).scaled)
        #expect(store.statistics.skippedByBreaker == 100)
    }

    @Test("a burst queued behind a node that never answers: every call ends within the lookup budget; the calls in flight open the breaker, the queued rest never reach the node")
    func burstBehindHangingNode() async throws {
        let (fd, port) = try LoopbackPort.listeningSocket()
        defer { close(fd) }
        var configuration = RedisStore.Configuration(endpoints: [.init(host: "127.0.0.1", port: port)])
        configuration.lookupBudget = .milliseconds(100)
        configuration.connectionsPerEndpoint = 2
        configuration.failureThreshold = 2
        configuration.breakerCoolDown = .seconds(60)
        let store = try RedisStore(configuration: configuration)
        let clock = ContinuousClock()
        // 40 reads at once: 20 rounds of two timeouts (2 s) if each queued
        // read went out in its turn.
        let elapsed = await clock.measure {
            await withTaskGroup(of: Data?.self) { group in
                for index in 0..<40 { group.addTask { await store.data(forKey: "k\(index)") } }
                for await data in group { #expect(data == nil) }
            }
        }
        #expect(elapsed < .milliseconds(100) + .milliseconds(500).scaled)
        // Two calls hold the two connections and time out side by side,
        // which opens the breaker; the rest in line never reach the node:
        // their deadline passes in line, or the breaker has opened when a
        // connection frees. (When one of the two fails before the other, the
        // first in line may take its room while the breaker is still closed:
        // 3 failures at the most.)
        let statistics = store.statistics
        #expect((2...3).contains(statistics.failures))
        #expect(statistics.breakerOpenings == 1)
        #expect(statistics.connectionsOpened <= statistics.failures)
        let expiredInLine = statistics.timeouts - statistics.failures
        #expect(statistics.failures + statistics.skippedByBreaker + expiredInLine == 40)
        // And then calls cost nothing
        let later = await clock.measure { for _ in 0..<100 { _ = await store.data(forKey: "x") } }
        #expect(later < .milliseconds(100).scaled)
    }

    @Test("two nodes: keys spread over both; a store listing them in another order finds every key")
    func twoNodes() async throws {
        let one = try await RedisServer()
        let two = try await RedisServer()
        let writer = try RedisStore(configuration: configuration(one, two))
        for index in 0..<200 {
            try await writer.setData(Data([UInt8(index % 256)]), forKey: "key-\(index)", extendedData: nil)
        }
        guard case .integer(let onOne) = try await one.command(["DBSIZE"]), case .integer(let onTwo) = try await two.command(["DBSIZE"]) else {
            Issue.record("no DBSIZE")
            return
        }
        #expect(onOne + onTwo == 200)
        #expect(onOne > 60 && onTwo > 60)
        let reader = try RedisStore(configuration: configuration(two, one))
        for index in stride(from: 0, to: 200, by: 7) {
            #expect(await reader.data(forKey: "key-\(index)") == Data([UInt8(index % 256)]))
        }
        try await reader.removeAll()
        #expect(try await one.command(["DBSIZE"]) == .integer(0))
        #expect(try await two.command(["DBSIZE"]) == .integer(0))
    }

    @Test("leases: one holder at a time; a waiter gets the holder's entry; an expired lease is taken over")
    func leases() async throws {
        let server = try await RedisServer()
        let nodeA = try RedisStore(configuration: configuration(server))
        let nodeB = try RedisStore(configuration: configuration(server))
        // Given A holds the lease for the key
        guard case .acquired(let lease) = await nodeA.acquireLease(forKey: "img", duration: .seconds(10)) else {
            Issue.record("A did not get the lease")
            return
        }
        #expect(await nodeB.acquireLease(forKey: "img", duration: .seconds(10)) == .heldByOther)
        // When B waits while A stores the image and releases
        let waiter = Task { try await nodeB.waitForEntry(forKey: "img", pollInterval: .milliseconds(10), timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        try await nodeA.setData(Data("pixels".utf8), forKey: "img", extendedData: nil)
        #expect(await nodeA.releaseLease(lease))
        // Then B gets A's entry
        guard case .entry(let data, _) = try await waiter.value else { Issue.record("B did not get the entry"); return }
        #expect(data == Data("pixels".utf8))

        // Given A takes a short lease and dies (never releases)
        guard case .acquired(let stale) = await nodeA.acquireLease(forKey: "img2", duration: .milliseconds(200)) else {
            Issue.record("A did not get the second lease")
            return
        }
        // Then B's wait ends when it expires, and B takes over
        let outcome = try await nodeB.waitForEntry(forKey: "img2", pollInterval: .milliseconds(10), timeout: .seconds(10))
        guard case .leaseGone = outcome else { Issue.record("expected leaseGone, got \(outcome)"); return }
        guard case .acquired(let taken) = await nodeB.acquireLease(forKey: "img2", duration: .seconds(10)) else {
            Issue.record("B did not take over")
            return
        }
        // And A's late release leaves B's lease alone
        #expect(await !nodeA.releaseLease(stale))
        #expect(await nodeA.acquireLease(forKey: "img2", duration: .seconds(1)) == .heldByOther)
        #expect(await nodeB.releaseLease(taken))
    }

    @Test("a wait for another server's fetch ends on cancellation")
    func waitCancellation() async throws {
        let server = try await RedisServer()
        let store = try RedisStore(configuration: configuration(server))
        guard case .acquired = await store.acquireLease(forKey: "slow", duration: .seconds(30)) else {
            Issue.record("no lease")
            return
        }
        let waiter = Task { try await store.waitForEntry(forKey: "slow", pollInterval: .milliseconds(10), timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        let clock = ContinuousClock()
        let start = clock.now
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(clock.now - start < .milliseconds(50) + .milliseconds(200).scaled)
    }
}
