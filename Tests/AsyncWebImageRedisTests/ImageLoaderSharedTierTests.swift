import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// Loaders of a fleet (here: several loaders in one process, each with its
/// own memory and disk, as separate servers would have) sharing one real Redis.
@Suite("ImageLoader with a shared tier", .serialized, .timeLimit(.minutes(2)))
struct ImageLoaderSharedTierTests {
    private func node(_ redis: RedisServer, configure: (inout RedisStore.Configuration) -> Void = { _ in }) throws -> FleetNode {
        var redisConfiguration = RedisStore.Configuration(endpoints: [redis.endpoint])
        configure(&redisConfiguration)
        return try FleetFixture.loader(shared: try RedisStore(configuration: redisConfiguration))
    }

    private func png() throws -> Data {
        try FleetFixture.png()
    }

    private func startedServer() throws -> LoopbackServer {
        let server = LoopbackServer()
        try server.start()
        return server
    }

    @Test("a second server's load is a shared-tier hit: the origin sees one request, and the hit fills the second server's disk")
    func sharedHit() async throws {
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        let image = try png()
        server.route("/a.png", .ok(image, contentType: "image/png"))
        let first = try node(redis)
        let second = try node(redis)
        defer { for node in [first, second] { node.removeDirectory() } }

        let fetched = try await first.loader.response(server.url("/a.png"), options: .waitStoreCache)
        #expect(fetched.source == .network)
        let shared = try await second.loader.response(server.url("/a.png"))
        #expect(shared.source == .sharedTier)
        #expect(shared.image.width == fetched.image.width)
        #expect(server.statistics("/a.png").requests == 1)
        #expect(try await eventually { try await second.disk.data(forKey: server.url("/a.png").absoluteString) == image })
    }

    @Test("three servers × 10 concurrent loads of one slow image: one origin request, every caller gets the image")
    func oneOriginFetchAcrossTheFleet() async throws {
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        let image = try png()
        server.route("/slow.png", FleetFixture.trickled(image, pieces: 8, every: .milliseconds(40)))
        let fleet = try [node(redis), node(redis), node(redis)]
        defer { for node in fleet { node.removeDirectory() } }
        let url = server.url("/slow.png")

        let widths = try await withThrowingTaskGroup(of: Int?.self) { group in
            for node in fleet {
                for _ in 0..<10 {
                    group.addTask { try await node.loader.response(url).image.width }
                }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(widths.count == 30)
        #expect(Set(widths).count == 1 && widths[0] != nil)
        #expect(server.statistics("/slow.png").requests == 1)
    }

    @Test("a lease holder that died: the others fetch once its lease expires")
    func deadLeader() async throws {
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        server.route("/b.png", .ok(try png(), contentType: "image/png"))
        let survivor = try node(redis) { $0.leasePollInterval = .milliseconds(10) }
        defer { survivor.removeDirectory() }
        // Given another server took the lease for the image and died
        let dead = try RedisStore(configuration: RedisStore.Configuration(endpoints: [redis.endpoint]))
        let url = server.url("/b.png")
        guard case .acquired = await dead.acquireLease(forKey: url.absoluteString, duration: .milliseconds(400)) else {
            Issue.record("could not take the lease")
            return
        }
        // When the survivor loads it
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await survivor.loader.response(url)
        // Then it waited for the lease to expire, then fetched it itself
        #expect(response.image.width > 0)
        #expect(clock.now - start >= .milliseconds(350))
        #expect(server.statistics("/b.png").requests == 1)
    }

    @Test("Redis down: loads succeed from the network, none waits past the shared tier's timeouts")
    func redisDown() async throws {
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        let image = try png()
        let fleetNode = try node(redis)
        defer { fleetNode.removeDirectory() }
        redis.stop()
        let clock = ContinuousClock()
        for index in 0..<5 {
            server.route("/c\(index).png", .ok(image, contentType: "image/png"))
            let start = clock.now
            let response = try await fleetNode.loader.response(server.url("/c\(index).png"))
            #expect(response.source == .network && response.image.width > 0)
            #expect(clock.now - start < .seconds(1).scaled)
        }
    }
}
