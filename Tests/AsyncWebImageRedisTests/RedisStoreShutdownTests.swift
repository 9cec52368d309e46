import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// `ImageCache.shutdown()` shuts its shared tier down: a `RedisStore`'s
/// connections close (seen by the real `redis-server`), and the store then
/// misses and refuses writes at once. (It has no threads of its own: its
/// connections live on NIO's shared event loops.)
@Suite("RedisStore shutdown", .serialized, .timeLimit(.minutes(1)))
struct RedisStoreShutdownTests {
    /// Clients connected to `server` (`INFO clients`), the asking one included.
    static func connectedClients(_ server: RedisServer) async throws -> Int {
        try await server.info("clients", "connected_clients") ?? -1
    }

    @Test("ImageCache.shutdown() waits for the calls under way and closes the store's connections; the store then misses and fails writes at once")
    func cacheShutdownEndsRedisThreads() async throws {
        // Given a cache whose shared tier is a store on a real Redis, used by 8 concurrent reads and writes
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.keyPrefix = "shutdown:"
        let store = try RedisStore(configuration: configuration)
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
        #expect(try await Self.connectedClients(server) > 1)

        // When the cache is shut down
        let clock = ContinuousClock()
        let started = clock.now
        await cache.shutdown()
        #expect(clock.now - started < .seconds(1))

        // Then Redis sees only the connection asking it (a bounded wait:
        // the close reaches the server just after)
        #expect(try await eventually(attempts: 2_000) { try await Self.connectedClients(server) == 1 })
        // And the store answers at once without Redis: a miss, a failed write
        let after = clock.now
        #expect(await store.data(forKey: "k3") == nil)
        await #expect(throws: ImageError.self) { try await store.setData(Data([9]), forKey: "k9", extendedData: nil) }
        #expect(clock.now - after < .milliseconds(200))
        #expect(try await server.command(["EXISTS", "shutdown:{" + SHA256.hexDigest("k9") + "}:v"]) == .integer(0))
        // And a second shutdown returns at once
        await store.shutdown()
    }
}
