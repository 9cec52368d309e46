import Foundation
import Testing
@_spi(Benchmarks) @testable import AsyncWebImage

/// `ImageCache.shutdown()` shuts its shared tier down: a `RedisStore`'s
/// threads end (seen in `/proc/self/task`) and its connections close (seen
/// by the real `redis-server`), and the store then misses and refuses
/// writes at once.
@Suite("RedisStore shutdown", .serialized, .timeLimit(.minutes(1)))
struct RedisStoreShutdownTests {
    /// Which of `ids` are threads of this process now.
    static func alive(_ ids: [Int32]) -> [Int32] {
        let tasks = Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [])
        return ids.filter { tasks.contains(String($0)) }
    }

    /// Clients connected to `server` (`INFO clients`), the asking one included.
    static func connectedClients(_ server: RedisServer) throws -> Int {
        guard case .bulk(let bytes) = try server.command(["INFO", "clients"]) else { return -1 }
        let text = String(decoding: bytes, as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("connected_clients:") }
        return line.flatMap { Int($0.split(separator: ":")[1]) } ?? -1
    }

    @Test("ImageCache.shutdown() ends the Redis pool's threads and closes its connections; the store then misses and fails writes at once")
    func cacheShutdownEndsRedisThreads() async throws {
        // Given a cache whose shared tier is a store on a real Redis, used by 8 concurrent reads and writes
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.keyPrefix = "shutdown:"
        let store = RedisStore(configuration: configuration)
        let cache = ImageCache(memory: MemoryCache(), disk: nil, sharedTier: store)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await store.setData(Data([UInt8(index)]), forKey: "k\(index)", extendedData: nil)
                    _ = await store.data(forKey: "k\(index)")
                }
            }
            try await group.waitForAll()
        }
        #expect(await store.data(forKey: "k3") == Data([3]))
        #expect(await pipelineEventually { store.pool.kernelThreadIDs.count == configuration.connectionsPerEndpoint })
        let ids = store.pool.kernelThreadIDs
        #expect(!ids.contains(0))
        #expect(Self.alive(ids).count == ids.count)
        #expect(try Self.connectedClients(server) > 1)

        // When the cache is shut down
        let clock = ContinuousClock()
        let started = clock.now
        await cache.shutdown()
        #expect(clock.now - started < .seconds(1))

        // Then the pool's threads are gone (the kernel removes a thread's
        // entry just after it returns: a bounded wait). Told apart by their
        // kernel IDs, not by counting: other suites' threads come and go.
        #expect(await pipelineEventually(attempts: 2_000) { Self.alive(ids).isEmpty })
        // And Redis sees only the connection asking it
        #expect(try await pipelineEventually(attempts: 2_000) { try Self.connectedClients(server) == 1 })
        // And the store answers at once without Redis: a miss, a failed write
        let after = clock.now
        #expect(await store.data(forKey: "k3") == nil)
        await #expect(throws: ImageError.self) { try await store.setData(Data([9]), forKey: "k9", extendedData: nil) }
        #expect(clock.now - after < .milliseconds(200))
        #expect(try server.command(["EXISTS", "shutdown:v:" + SHA256.hexDigest("k9")]) == .integer(0))
        // And a second shutdown returns at once
        await store.shutdown()
    }
}
