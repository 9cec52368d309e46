import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// What users meet: origins that answer as plain file servers do, with a
/// body and a `Content-Type` and nothing about caching, and the loader in
/// its default configuration. The second load of an image is a cache hit
/// in each tier, as SDWebImage's is; what the origin says explicitly wins.
/// Counted by the requests the origin saw.
@Suite("ImageLoader: default caching against silent origins", .timeLimit(.minutes(1)))
struct ImageLoaderDefaultCachingTests {
    /// Serves the fixture PNG at `path` with `headers` beside its `Content-Type`, and `etag` when given.
    static func serve(_ harness: PipelineHarness, _ path: String, _ headers: [(String, String)] = [], etag: String? = nil) throws -> URL {
        let png = try fixture("png", "rgb8.png")
        var response = LoopbackServer.Response(headers: [("Content-Type", "image/png")] + headers.map { (name: $0.0, value: $0.1) }, body: png)
        response.etag = etag
        harness.server.route(path, response)
        return harness.server.url(path)
    }

    @Test("a silent origin: the second load is a memory hit, a restarted loader's a disk hit; 1 origin request in all")
    func silentOrigin() async throws {
        // Given an origin that sends no Cache-Control, Expires, ETag or Last-Modified
        let harness = try PipelineHarness()
        let url = try Self.serve(harness, "/silent.png")

        // When it is loaded twice, then by a new loader on the same disk
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url)
        let restarted = try await harness.restartedLoader().response(url)

        // Then only the first load reached the origin
        #expect(first.source == .network)
        #expect(second.source == .memory)
        #expect(restarted.source == .disk)
        #expect(harness.requests("/silent.png") == 1)
        #expect(restarted.image.width == 37 && restarted.image.height == 23)
        // And the entry is fresh for a week from now, not forever
        let metadata = try #require(await harness.disk.extendedData(forKey: url.absoluteString).flatMap(HTTPCacheMetadata.init(encoded:)))
        let freshness = HTTPFreshness(metadata, policy: .private)
        #expect(freshness.isFresh(at: Date().addingTimeInterval(6.9 * 86_400)))
        #expect(!freshness.isFresh(at: Date().addingTimeInterval(7.1 * 86_400)))
    }

    @Test("no-store: never stored, every load downloads (2 requests); max-age=0 with an ETag: 1 download and 1 conditional request")
    func explicitDirectivesWin() async throws {
        let harness = try PipelineHarness()
        let noStore = try Self.serve(harness, "/no-store.png", [("Cache-Control", "no-store")])
        let zero = try Self.serve(harness, "/zero.png", [("Cache-Control", "max-age=0")], etag: "\"z1\"")

        _ = try await harness.loader.response(noStore, options: .waitStoreCache)
        let again = try await harness.loader.response(noStore)
        _ = try await harness.loader.response(zero, options: .waitStoreCache)
        let revalidated = try await harness.loader.response(zero)

        #expect(again.source == .network)
        #expect(harness.requests("/no-store.png") == 2)
        #expect(await harness.disk.contains(noStore.absoluteString) == false)
        #expect(harness.requests("/zero.png") == 2)
        #expect(harness.server.statistics("/zero.png").conditionalRequests == 1)
        #expect(harness.server.statistics("/zero.png").notModifiedResponses == 1)
        #expect(revalidated.source == .revalidated)
    }

    @Test("validators only: fresh for the configured lifetime; once it has passed, revalidated (a 304), not downloaded again")
    func lifetimeThenRevalidation() async throws {
        // Given a loader whose default lifetime has passed for every entry
        let harness = try PipelineHarness { $0.defaultFreshnessLifetime = .zero }
        let url = try Self.serve(harness, "/v.png", etag: "\"v1\"")
        // And one with the default week
        let weekly = try PipelineHarness()
        let weeklyURL = try Self.serve(weekly, "/v.png", etag: "\"v1\"")

        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url)
        _ = try await weekly.loader.response(weeklyURL, options: .waitStoreCache)
        let weeklySecond = try await weekly.loader.response(weeklyURL)

        // Then the expired entry was asked about with its ETag and kept
        #expect(harness.requests("/v.png") == 2)
        #expect(harness.server.statistics("/v.png").requestHeaders.last?["if-none-match"] == "\"v1\"")
        #expect(harness.server.statistics("/v.png").notModifiedResponses == 1)
        #expect(second.image.width == 37)
        // And the week-long one was not asked about at all
        #expect(weeklySecond.source == .memory)
        #expect(weekly.requests("/v.png") == 1)
    }

    @Test("the strict modes keep RFC 9111's letter: a silent response is downloaded again; must-revalidate and no-cache revalidate in the default mode too")
    func strictAndRevalidatingDirectives() async throws {
        let strict = try PipelineHarness { $0.httpCacheMode = .strictPrivate }
        let silent = try Self.serve(strict, "/silent.png")
        _ = try await strict.loader.response(silent, options: .waitStoreCache)
        #expect(try await strict.loader.response(silent).source == .network)
        #expect(strict.requests("/silent.png") == 2)

        let harness = try PipelineHarness()
        let mustRevalidate = try Self.serve(harness, "/mr.png", [("Cache-Control", "must-revalidate")], etag: "\"m\"")
        let noCache = try Self.serve(harness, "/nc.png", [("Cache-Control", "no-cache")], etag: "\"n\"")
        for url in [mustRevalidate, noCache] {
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            _ = try await harness.loader.response(url)
        }
        #expect(harness.server.statistics("/mr.png").notModifiedResponses == 1)
        #expect(harness.server.statistics("/nc.png").notModifiedResponses == 1)
    }
}
