import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// HTTP caching with the shared tier: two loaders (two servers of a fleet,
/// each with its own memory and disk) over one real Redis.
@Suite("ImageLoader: HTTP caching across a shared tier", .serialized, .timeLimit(.minutes(2)))
struct ImageLoaderHTTPCacheFleetTests {
    private func node(_ redis: RedisServer) throws -> FleetNode {
        try FleetFixture.loader(shared: try RedisStore(configuration: RedisStore.Configuration(endpoints: [redis.endpoint])), httpCacheMode: .shared)
    }

    @Test("no-store and private are not written to the shared tier; a max-age entry is, with its freshness, and serves the other node")
    func sharedTier() async throws {
        let redis = try await RedisServer()
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let png = try FleetFixture.png()
        for (path, control) in [("/ns.png", "no-store"), ("/p.png", "private, max-age=60"), ("/f.png", "max-age=60")] {
            server.route(path, LoopbackServer.Response(headers: [("Content-Type", "image/png"), ("Cache-Control", control)], body: png))
        }
        let first = try node(redis)
        let second = try node(redis)
        defer { for node in [first, second] { node.removeDirectory() } }

        for path in ["/ns.png", "/p.png", "/f.png"] {
            _ = try await first.loader.response(server.url(path), options: .waitStoreCache)
        }
        let fresh = try await second.loader.response(server.url("/f.png"))
        let noStore = try await second.loader.response(server.url("/ns.png"))
        let privateResponse = try await second.loader.response(server.url("/p.png"))

        #expect(fresh.source == .sharedTier)
        #expect(noStore.source == .network && privateResponse.source == .network)
        #expect(server.statistics("/f.png").requests == 1)
        #expect(server.statistics("/ns.png").requests == 2)
        #expect(server.statistics("/p.png").requests == 2)
        #expect(await first.shared.data(forKey: server.url("/ns.png").absoluteString) == nil)
        #expect(await first.shared.data(forKey: server.url("/p.png").absoluteString) == nil)
        let stored = await first.shared.extendedData(forKey: server.url("/f.png").absoluteString)
        let metadata = try #require(stored.flatMap(HTTPCacheMetadata.init(encoded:)))
        #expect(metadata.fields?["cache-control"] == "max-age=60")
        #expect(HTTPFreshness(metadata, policy: .strictShared).isFresh(at: Date()))
    }
}
