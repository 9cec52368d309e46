import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// HTTP caching (RFC 9111) against a real loopback server: every test counts
/// what the server saw — requests, conditional requests and 304s — and what
/// the tiers hold afterwards.
@Suite("ImageLoader: HTTP caching", .timeLimit(.minutes(2)))
struct ImageLoaderHTTPCacheTests {
    static let etag = "\"v1\""

    /// A harness whose loader caches in `mode`.
    static func harness(_ mode: ImageLoader.HTTPCacheMode = .strictPrivate) throws -> PipelineHarness {
        try PipelineHarness { $0.httpCacheMode = mode }
    }

    /// Serves the PNG fixture at `path` with `headers` (and an `ETag` unless `etag` is nil).
    static func serve(_ harness: PipelineHarness, _ path: String, _ headers: [(String, String)], etag: String? = etag) throws -> URL {
        let png = try fixture("png", "rgb8.png")
        harness.server.route(path, LoopbackServer.Response(
            headers: [("Content-Type", "image/png")] + headers.map { (name: $0.0, value: $0.1) }, body: png, etag: etag
        ))
        return harness.server.url(path)
    }

    /// Requests, conditional requests and 304s the server saw for `path`.
    static func counts(_ harness: PipelineHarness, _ path: String) -> [Int] {
        let statistics = harness.server.statistics(path)
        return [statistics.requests, statistics.conditionalRequests, statistics.notModifiedResponses]
    }

    static func width(_ response: ImageResponse) -> Int? { response.image.width }

    @Test("no-store: written to no tier, every load asks the server")
    func noStore() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/ns.png", [("Cache-Control", "no-store")])
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(first.source == .network && second.source == .network)
        #expect(Self.width(second) == Self.width(first) && Self.width(first) != nil)
        #expect(Self.counts(harness, "/ns.png") == [2, 0, 0])
        #expect(await !harness.disk.contains(url.absoluteString))
        #expect(await !harness.memory.contains(url.absoluteString))
    }

    @Test("no-cache: stored, but revalidated before every use; the 304 serves the memory image with no decode")
    func noCache() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/nc.png", [("Cache-Control", "no-cache")])
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        let decodes = harness.decodes.count
        let second = try await harness.loader.response(url)
        #expect(first.source == .network)
        #expect(second.source == .revalidated)
        #expect(Self.width(second) == Self.width(first))
        #expect(harness.decodes.count == decodes)
        #expect(Self.counts(harness, "/nc.png") == [2, 1, 1])
        #expect(harness.server.statistics("/nc.png").requestHeaders.last?["if-none-match"] == Self.etag)
        #expect(await harness.disk.contains(url.absoluteString))
    }

    @Test("max-age: fresh loads skip the server; once it elapses a conditional request, a 304, fresh again")
    func maxAge() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/ma.png", [("Cache-Control", "max-age=1")])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let fresh = try await harness.loader.response(url)
        #expect(fresh.source == .memory)
        #expect(Self.counts(harness, "/ma.png") == [1, 0, 0])

        try await Task.sleep(for: .milliseconds(1200))
        let revalidated = try await harness.loader.response(url)
        #expect(revalidated.source == .revalidated)
        #expect(Self.counts(harness, "/ma.png") == [2, 1, 1])
        // The 304 restarted the entry's age: fresh again.
        _ = try await harness.loader.response(url)
        #expect(Self.counts(harness, "/ma.png") == [2, 1, 1])
    }

    @Test("a stale disk entry is revalidated by a new loader: 304, served from disk, no body sent")
    func staleDiskEntry() async throws {
        let harness = try Self.harness()
        var response = LoopbackServer.Response(
            headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=1")], body: try fixture("png", "rgb8.png")
        )
        response.lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        harness.server.route("/lm.png", response)
        let url = harness.server.url("/lm.png")
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        let bodyBytes = harness.server.statistics("/lm.png").bodyBytesSent
        try await Task.sleep(for: .milliseconds(1200))
        let restarted = harness.restartedLoader { $0.httpCacheMode = .strictPrivate }
        let second = try await restarted.response(url)
        #expect(second.source == .revalidated)
        #expect(Self.width(second) == Self.width(first))
        #expect(Self.counts(harness, "/lm.png") == [2, 1, 1])
        #expect(harness.server.statistics("/lm.png").requestHeaders.last?["if-modified-since"] == response.lastModified)
        #expect(harness.server.statistics("/lm.png").bodyBytesSent == bodyBytes)
    }

    @Test("s-maxage counts in shared mode only")
    func sharedMaxAge() async throws {
        for (mode, expected) in [(ImageLoader.HTTPCacheMode.strictShared, [1, 0, 0]), (.strictPrivate, [2, 1, 1])] {
            let harness = try Self.harness(mode)
            let url = try Self.serve(harness, "/s.png", [("Cache-Control", "max-age=0, s-maxage=60")])
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            _ = try await harness.loader.response(url)
            #expect(Self.counts(harness, "/s.png") == expected, "\(mode)")
        }
    }

    @Test("private: stored by a private cache, not by a shared one")
    func privateResponses() async throws {
        for (mode, expected, stored) in [(ImageLoader.HTTPCacheMode.strictPrivate, [1, 0, 0], true), (.strictShared, [2, 0, 0], false)] {
            let harness = try Self.harness(mode)
            let url = try Self.serve(harness, "/p.png", [("Cache-Control", "private, max-age=60")])
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            #expect(Self.counts(harness, "/p.png") == expected, "\(mode)")
            #expect(await harness.disk.contains(url.absoluteString) == stored, "\(mode)")
        }
    }

    @Test("Expires: fresh until it, counted from Date; a past Expires is revalidated")
    func expires() async throws {
        let harness = try Self.harness()
        let now = Date()
        let future = try Self.serve(harness, "/future.png", [
            ("Date", HTTPDate.format(now)), ("Expires", HTTPDate.format(now.addingTimeInterval(120))),
        ])
        let past = try Self.serve(harness, "/past.png", [
            ("Date", HTTPDate.format(now)), ("Expires", HTTPDate.format(now.addingTimeInterval(-120))),
        ])
        for url in [future, past] {
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            _ = try await harness.loader.response(url)
        }
        #expect(Self.counts(harness, "/future.png") == [1, 0, 0])
        #expect(Self.counts(harness, "/past.png") == [2, 1, 1])
    }

    @Test("Vary: the same header value is a hit, another value a miss (a full request); each variant is kept under its own keys")
    func vary() async throws {
        let harness = try Self.harness()
        // No validator: a request for another variant cannot be conditional
        // (ImageLoaderHTTPSemanticsTests has the conditional case, RFC 9111 §4.3.1).
        let url = try Self.serve(harness, "/v.png", [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], etag: nil)
        // The key filter shares entries across the header's values: Vary alone keeps them apart.
        func context(_ language: String) -> ImageContext {
            var context = ImageContext()
            context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [.acceptLanguage])
            context.requestModifier = RequestModifier.headers([.acceptLanguage: language])
            return context
        }
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: context("fr"))
        let same = try await harness.loader.response(url, context: context("fr"))
        #expect(same.source == .memory)
        #expect(Self.counts(harness, "/v.png") == [1, 0, 0])
        let other = try await harness.loader.response(url, options: .waitStoreCache, context: context("de"))
        #expect(other.source == .network)
        #expect(Self.counts(harness, "/v.png") == [2, 0, 0])
        #expect(harness.server.statistics("/v.png").requestHeaders.last?["accept-language"] == "de")
        // The first variant was not replaced by the second (RFC 9111 §4.1: a
        // cache may keep several responses of one URL).
        #expect(try await harness.loader.response(url, context: context("fr")).source == .memory)
        #expect(Self.counts(harness, "/v.png") == [2, 0, 0])
        // A new loader on the same disk: both variants are there.
        let restarted = harness.restartedLoader()
        #expect(try await restarted.response(url, context: context("de")).source == .disk)
        #expect(try await restarted.response(url, context: context("fr")).source == .disk)
        #expect(try await restarted.response(url, options: .waitStoreCache, context: context("it")).source == .network)
        #expect(Self.counts(harness, "/v.png") == [3, 0, 0])
    }

    @Test("Vary over two header lines: a change in the field named on either line is a miss")
    func varyOverTwoLines() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/v2.png", [
            ("Cache-Control", "max-age=60"), ("Vary", "Accept-Language"), ("vary", "X-Variant"),
        ], etag: nil)
        let variant = HTTPField.Name("X-Variant")!
        // The key filter shares entries across both fields' values: Vary alone keeps them apart.
        func context(_ language: String, _ value: String) -> ImageContext {
            var context = ImageContext()
            context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [.acceptLanguage, variant])
            context.requestModifier = RequestModifier.headers([.acceptLanguage: language, variant: value])
            return context
        }
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: context("fr", "1"))
        #expect(try await harness.loader.response(url, context: context("fr", "1")).source == .memory)
        #expect(Self.counts(harness, "/v2.png") == [1, 0, 0])
        // The field of the second line alone changes: not the stored response.
        #expect(try await harness.loader.response(url, options: .waitStoreCache, context: context("fr", "2")).source == .network)
        #expect(Self.counts(harness, "/v2.png") == [2, 0, 0])
        #expect(try await harness.loader.response(url, options: .waitStoreCache, context: context("de", "2")).source == .network)
        #expect(Self.counts(harness, "/v2.png") == [3, 0, 0])
        // A new loader on the same disk: the entry holds ("de", "2") and matches only that.
        let restarted = harness.restartedLoader()
        #expect(try await restarted.response(url, options: .waitStoreCache, context: context("de", "1")).source == .network)
        #expect(Self.counts(harness, "/v2.png") == [4, 0, 0])
        let again = harness.restartedLoader()
        #expect(try await again.response(url, context: context("de", "1")).source == .disk)
        #expect(Self.counts(harness, "/v2.png") == [4, 0, 0])
    }

    @Test("Vary: * is not stored")
    func varyStar() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/vs.png", [("Cache-Control", "max-age=60"), ("Vary", "*")])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(Self.counts(harness, "/vs.png") == [2, 0, 0])
        #expect(await !harness.disk.contains(url.absoluteString))
    }

    @Test("stale-while-revalidate: the stale entry is served at once, one conditional request runs in the background")
    func staleWhileRevalidate() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/swr.png", [("Cache-Control", "max-age=1, stale-while-revalidate=30")])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        try await Task.sleep(for: .milliseconds(1200))
        // A slow server: a load that waited for the revalidation would take 1.5 s.
        var slow = LoopbackServer.Response(
            headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=1, stale-while-revalidate=30")],
            body: try fixture("png", "rgb8.png"), delayBeforeHead: .milliseconds(1500), etag: Self.etag
        )
        slow.lastModified = nil
        harness.server.route("/swr.png", slow)
        let started = ContinuousClock.now
        let stale = try await harness.loader.response(url)
        #expect(ContinuousClock.now - started < .milliseconds(1000))
        #expect(stale.source == .memory)
        #expect(await harness.server.waitUntil("/swr.png") { $0.notModifiedResponses == 1 && $0.completed == 2 })
        #expect(await Self.eventually { harness.loader.backgroundRevalidations.count == 0 })
        #expect(Self.counts(harness, "/swr.png") == [2, 1, 1])
        // Refreshed by the 304: fresh, no request.
        _ = try await harness.loader.response(url)
        #expect(Self.counts(harness, "/swr.png") == [2, 1, 1])
    }

    @Test("immutable: a fresh entry is not revalidated even with .refreshCached; a mutable one is")
    func immutable() async throws {
        let harness = try Self.harness()
        let frozen = try Self.serve(harness, "/i.png", [("Cache-Control", "max-age=60, immutable")])
        let mutable = try Self.serve(harness, "/m.png", [("Cache-Control", "max-age=60")])
        for url in [frozen, mutable] {
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            _ = try await harness.loader.response(url, options: .refreshCached)
        }
        #expect(Self.counts(harness, "/i.png") == [1, 0, 0])
        #expect(Self.counts(harness, "/m.png") == [2, 1, 1])
    }

    @Test("ignoring headers: no-store and max-age=0 responses are stored and served as SDWebImage does")
    func ignoringHeaders() async throws {
        let harness = try Self.harness(.ignoringHeaders)
        let url = try Self.serve(harness, "/ig.png", [("Cache-Control", "no-store, max-age=0")])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url)
        let restarted = try await harness.restartedLoader { $0.httpCacheMode = .ignoringHeaders }.response(url)
        #expect(second.source == .memory)
        #expect(restarted.source == .disk)
        #expect(Self.counts(harness, "/ig.png") == [1, 0, 0])
        #expect(await harness.disk.contains(url.absoluteString))
    }

    @Test("a new loader on the same directory: the no-store entry is absent, the max-age entry is served fresh")
    func survivesRestart() async throws {
        let harness = try Self.harness()
        let noStore = try Self.serve(harness, "/a.png", [("Cache-Control", "no-store")])
        let fresh = try Self.serve(harness, "/b.png", [("Cache-Control", "max-age=600")])
        _ = try await harness.loader.response(noStore, options: .waitStoreCache)
        _ = try await harness.loader.response(fresh, options: .waitStoreCache)
        let restarted = harness.restartedLoader()
        let a = try await restarted.response(noStore)
        let b = try await restarted.response(fresh)
        #expect(a.source == .network)
        #expect(b.source == .disk)
        #expect(Self.width(a) == Self.width(b) && Self.width(a) != nil)
        #expect(Self.counts(harness, "/a.png") == [2, 0, 0])
        #expect(Self.counts(harness, "/b.png") == [1, 0, 0])
    }

    @Test("a shared cache does not store a response to a request with Authorization unless it says public")
    func authorizationInSharedMode() async throws {
        let harness = try Self.harness(.strictShared)
        let hidden = try Self.serve(harness, "/auth.png", [("Cache-Control", "max-age=60")])
        let open = try Self.serve(harness, "/pub.png", [("Cache-Control", "public, max-age=60")])
        var context = ImageContext()
        context.requestModifier = RequestModifier.headers([.authorization: "Bearer secret"])
        for url in [hidden, open] {
            _ = try await harness.loader.response(url, options: .waitStoreCache, context: context)
            _ = try await harness.loader.response(url, options: .waitStoreCache, context: context)
        }
        #expect(Self.counts(harness, "/auth.png") == [2, 0, 0])
        #expect(Self.counts(harness, "/pub.png") == [1, 0, 0])
    }

    @Test(".fromCacheOnly serves a stale entry, unless must-revalidate forbids it")
    func cacheOnlyAndMustRevalidate() async throws {
        let harness = try Self.harness()
        let lenient = try Self.serve(harness, "/lenient.png", [("Cache-Control", "max-age=0")])
        let strict = try Self.serve(harness, "/strict.png", [("Cache-Control", "max-age=0, must-revalidate")])
        for url in [lenient, strict] { _ = try await harness.loader.response(url, options: .waitStoreCache) }
        let served = try await harness.loader.response(lenient, options: .fromCacheOnly)
        #expect(served.source == .memory)
        await #expect(throws: ImageError.cacheMiss) {
            try await harness.loader.response(strict, options: .fromCacheOnly)
        }
        #expect(Self.counts(harness, "/lenient.png") == [1, 0, 0])
        #expect(Self.counts(harness, "/strict.png") == [1, 0, 0])
        // Without .fromCacheOnly the strict one is revalidated, not served stale.
        #expect(try await harness.loader.response(strict).source == .revalidated)
        #expect(Self.counts(harness, "/strict.png") == [2, 1, 1])
    }

    @Test("a transformed image: a 304 serves the transformed image from memory, with no decode and no transform of new bytes")
    func transformedRevalidation() async throws {
        let harness = try Self.harness()
        let url = try Self.serve(harness, "/t.png", [("Cache-Control", "no-cache")])
        var context = ImageContext()
        context.transformer = ImageTransformers.Resize(width: 8, height: 8, mode: .fill)
        let first = try await harness.loader.response(url, options: .waitStoreCache, context: context)
        let decodes = harness.decodes.count
        let second = try await harness.loader.response(url, context: context)
        #expect(first.image.width == 8 && second.image.width == 8)
        #expect(second.source == .revalidated)
        #expect(second.image.pixels == first.image.pixels)
        #expect(harness.decodes.count == decodes)
        #expect(Self.counts(harness, "/t.png") == [2, 1, 1])
        // A new loader (empty memory): the transformed entry on disk is due too.
        let restarted = harness.restartedLoader()
        let third = try await restarted.response(url, context: context)
        #expect(third.source == .revalidated)
        #expect(third.image.width == 8)
        #expect(Self.counts(harness, "/t.png") == [3, 2, 2])
    }

    /// A route that serves `body` as `etag`, and answers any conditional
    /// request with a `304` naming `notModifiedTag` (which need not match).
    static func representation(_ body: Data, etag: String, notModifiedTag: String) -> LoopbackServer.Handler {
        { request in
            if request[header: "If-None-Match"] != nil {
                return LoopbackServer.Response(status: 304, headers: [("ETag", notModifiedTag), ("Cache-Control", "no-cache")])
            }
            return LoopbackServer.Response(
                headers: [("Content-Type", "image/png"), ("Cache-Control", "no-cache")], body: body, etag: etag
            )
        }
    }

    @Test("a 304 naming another ETag refreshes nothing: the image is fetched whole, without validators (RFC 9111 §4.3.4)")
    func notModifiedForAnotherRepresentation() async throws {
        let harness = try Self.harness()
        let path = "/moved.png"
        let url = harness.server.url(path)
        let old = try fixture("png", "rgb8.png")
        let new = try fixture("png", "gray1.png")
        harness.server.route(path, handler: Self.representation(old, etag: Self.etag, notModifiedTag: Self.etag))
        let first = try await harness.loader.response(url, options: .waitStoreCache)

        // The origin has a new representation, yet answers the old validator with a 304 for it.
        harness.server.route(path, handler: Self.representation(new, etag: "\"v2\"", notModifiedTag: "\"v2\""))
        let second = try await harness.loader.response(url, options: .waitStoreCache)
        let expected = try PNGCoder().decode(new, options: ImageDecodingOptions())
        #expect(second.source == .network)
        #expect(second.image.pixels == expected.pixels)
        #expect(second.image.pixels != first.image.pixels)
        let statistics = harness.server.statistics(path)
        #expect(statistics.requests == 3 && statistics.conditionalRequests == 1)
        #expect(statistics.requestHeaders.last?["if-none-match"] == nil)

        // The new representation is what is stored now: its own 304 refreshes it.
        let third = try await harness.loader.response(url)
        #expect(third.source == .revalidated)
        #expect(third.image.pixels == expected.pixels)
        #expect(harness.server.statistics(path).requestHeaders.last?["if-none-match"] == "\"v2\"")
    }

    @Test("a 304 with the weak form of the stored ETag, or with no validator, refreshes the entry")
    func weakNotModified() async throws {
        let harness = try Self.harness()
        let png = try fixture("png", "rgb8.png")
        for (path, tag) in [("/weak.png", "W/\(Self.etag)"), ("/bare.png", "")] {
            let url = harness.server.url(path)
            harness.server.route(path) { request in
                if request[header: "If-None-Match"] != nil {
                    return LoopbackServer.Response(status: 304, headers: tag.isEmpty ? [] : [("ETag", tag)])
                }
                return LoopbackServer.Response(
                    headers: [("Content-Type", "image/png"), ("Cache-Control", "no-cache")], body: png, etag: Self.etag
                )
            }
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            let decodes = harness.decodes.count
            let second = try await harness.loader.response(url)
            #expect(second.source == .revalidated, "\(path)")
            #expect(harness.decodes.count == decodes, "\(path)")
            let statistics = harness.server.statistics(path)
            #expect(statistics.requests == 2 && statistics.conditionalRequests == 1, "\(path)")
        }
    }

    /// Polls `condition` for up to 5 s.
    static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
