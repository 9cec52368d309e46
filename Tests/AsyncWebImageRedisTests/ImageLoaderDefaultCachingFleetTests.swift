import AWITestSupport
import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis
import AsyncWebImageWebP

/// The default caching of a fleet against origins that say nothing about
/// caching (as plain file servers, app backends and signed object-store
/// URLs answer): loaders with their own memory and disk over one real
/// Redis, counted by the requests the origin saw.
@Suite("ImageLoader: default caching across a shared tier", .serialized, .timeLimit(.minutes(2)))
struct ImageLoaderDefaultCachingFleetTests {
    private func node(
        _ redis: RedisServer, directory: URL? = nil, configure: (inout ImageLoader.Configuration) -> Void = { _ in }
    ) throws -> FleetNode {
        var redisConfiguration = RedisStore.Configuration(endpoints: [redis.endpoint])
        redisConfiguration.leasePollInterval = .milliseconds(10)
        return try FleetFixture.loader(shared: RedisStore(configuration: redisConfiguration), directory: directory, configure: configure)
    }

    private func startedServer() throws -> LoopbackServer {
        let server = LoopbackServer()
        try server.start()
        return server
    }

    /// Routes the fixture PNG at `path` with `headers` beside its `Content-Type`.
    private func route(_ server: LoopbackServer, _ path: String, _ headers: [(String, String)] = [], etag: String? = nil) throws -> URL {
        var response = LoopbackServer.Response(
            headers: [("Content-Type", "image/png")] + headers.map { (name: $0.0, value: $0.1) }, body: try FleetFixture.png()
        )
        response.etag = etag
        server.route(path, response)
        return server.url(path)
    }

    @Test("a silent origin: a second server with an empty disk loads from the shared tier, then from memory; 1 origin request")
    func sharedTierServesSilentResponses() async throws {
        // Given an origin that sends nothing about caching and two servers on one Redis
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        let url = try route(server, "/silent.png")
        let first = try node(redis)
        let second = try node(redis)
        defer { for node in [first, second] { node.removeDirectory() } }

        // When the first loads it, then the second twice
        _ = try await first.loader.response(url, options: .waitStoreCache)
        let shared = try await second.loader.response(url)
        let memory = try await second.loader.response(url)

        // Then the origin saw one request
        #expect(shared.source == .sharedTier)
        #expect(memory.source == .memory)
        #expect(server.statistics("/silent.png").requests == 1)
    }

    @Test("no-store: each server downloads (2 requests), the tier holds nothing; max-age=0 with an ETag: 1 download and 1 conditional request")
    func explicitDirectivesWinAcrossTheFleet() async throws {
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        let noStore = try route(server, "/ns.png", [("Cache-Control", "no-store")])
        let zero = try route(server, "/zero.png", [("Cache-Control", "max-age=0")], etag: "\"z\"")
        let first = try node(redis)
        let second = try node(redis)
        defer { for node in [first, second] { node.removeDirectory() } }

        for url in [noStore, zero] {
            _ = try await first.loader.response(url, options: .waitStoreCache)
            _ = try await second.loader.response(url)
        }

        #expect(server.statistics("/ns.png").requests == 2)
        #expect(await first.shared.data(forKey: noStore.absoluteString) == nil)
        #expect(server.statistics("/zero.png").requests == 2)
        #expect(server.statistics("/zero.png").conditionalRequests == 1)
        #expect(server.statistics("/zero.png").notModifiedResponses == 1)
    }

    @Test("two servers revalidating one stale entry at once: one conditional request; the other takes the refreshed entry from the tier")
    func revalidationTakesTheFleetLease() async throws {
        // Given an entry in the shared tier that has just gone stale, and a slow origin
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        var response = LoopbackServer.Response(
            headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=1")], body: try FleetFixture.png(),
            delayBeforeHead: .milliseconds(300)
        )
        response.etag = "\"r\""
        server.route("/r.png", response)
        let url = server.url("/r.png")
        let fleet = try [node(redis), node(redis)]
        defer { for node in fleet { node.removeDirectory() } }
        for node in fleet { _ = try await node.loader.response(url, options: .waitStoreCache) }
        #expect(server.statistics("/r.png").requests == 1)
        try await Task.sleep(for: .milliseconds(1_100))

        // When both load it at once
        let responses = try await withThrowingTaskGroup(of: ImageResponse.self) { group in
            for node in fleet { group.addTask { try await node.loader.response(url) } }
            return try await group.reduce(into: [ImageResponse]()) { $0.append($1) }
        }

        // Then one asked the origin and the other waited for its answer
        #expect(responses.count == 2)
        #expect(server.statistics("/r.png").conditionalRequests == 1)
        #expect(server.statistics("/r.png").requests == 2)
    }

    @Test("a loader without the WebP product meets a WebP entry: a typed error naming the product, the entry stays, a loader with it reads it with no origin request")
    func unsupportedFormatKeepsTheEntry() async throws {
        // Given a WebP image a loader with the WebP coder stored on a disk and in Redis
        let redis = try await RedisServer()
        let server = try startedServer()
        defer { server.stop() }
        let source = try ImageCoderRegistry.builtIn.decode(try FleetFixture.png())
        let webp = try WebPCoder().encode(source, as: .webp, quality: 0.9)
        server.route("/w.webp", .ok(webp, contentType: "image/webp"))
        let url = server.url("/w.webp")
        let writer = try node(redis) { $0.coders = ImageCoderRegistry.builtIn.adding(WebPCoder()) }
        defer { writer.removeDirectory() }
        _ = try await writer.loader.response(url, options: .waitStoreCache)

        // When a core-only loader on the same disk and Redis loads it
        let coreOnly = try node(redis, directory: writer.directory)
        await #expect(throws: ImageError.unsupportedFormat(.webp)) { try await coreOnly.loader.response(url) }
        let message = ImageError.unsupportedFormat(.webp).description

        // Then the error names the product, and nothing was removed
        #expect(message.contains("AsyncWebImageWebP") && message.contains("WebPCoder"))
        #expect(try await writer.disk.data(forKey: url.absoluteString) == webp)
        #expect(await writer.shared.data(forKey: url.absoluteString) == webp)
        // And a loader with the coder reads it from the disk, with no origin request
        let reader = try node(redis, directory: writer.directory) { $0.coders = ImageCoderRegistry.builtIn.adding(WebPCoder()) }
        let read = try await reader.loader.response(url)
        #expect(read.source == .disk)
        #expect(read.image.width == source.width && read.image.height == source.height)
        #expect(server.statistics("/w.webp").requests == 1)
    }
}
