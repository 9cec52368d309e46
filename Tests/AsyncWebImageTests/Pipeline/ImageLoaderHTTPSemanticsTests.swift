import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// RFC 9111 rules the loader follows end to end, against a real loopback
/// origin: what is stored, what is reused without asking, what is served
/// when the origin fails, and the response head a load returns. Every test
/// counts what the origin saw.
@Suite("ImageLoader: RFC 9111 semantics", .timeLimit(.minutes(1)))
struct ImageLoaderHTTPSemanticsTests {
    static func harness(_ mode: ImageLoader.HTTPCacheMode = .strictPrivate, metrics: RecordingMetricsFactory? = nil) throws -> PipelineHarness {
        try PipelineHarness {
            $0.httpCacheMode = mode
            if let metrics { $0.metricsFactory = metrics }
        }
    }

    static func route(_ harness: PipelineHarness, _ path: String, status: Int = 200, _ headers: [(String, String)], fault: LoopbackServer.Response.Fault? = nil) throws -> URL {
        harness.server.route(path, LoopbackServer.Response(
            status: status, headers: [("Content-Type", "image/png")] + headers.map { (name: $0.0, value: $0.1) },
            body: try fixture("png", "rgb8.png"), fault: fault
        ))
        return harness.server.url(path)
    }

    static let now = HTTPDate.format(Date())

    @Test("no freshness and no validator: stored, never reused without a request, still there for .fromCacheOnly")
    func noFreshnessInformation() async throws {
        let harness = try Self.harness()
        let url = try Self.route(harness, "/plain.png", [])
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(first.source == .network && second.source == .network)
        #expect(harness.requests("/plain.png") == 2)
        #expect(harness.server.statistics("/plain.png").conditionalRequests == 0)
        let offline = try await harness.loader.response(url, options: .fromCacheOnly)
        #expect(offline.source == .memory)
        #expect(harness.requests("/plain.png") == 2)
    }

    @Test("storable by status: a 201 or 202 without explicit freshness is kept nowhere; with max-age it is")
    func storableByStatus() async throws {
        let harness = try Self.harness()
        let lastModified = HTTPDate.format(Date().addingTimeInterval(-86_400))
        for status in [201, 202] {
            let url = try Self.route(harness, "/s\(status).png", status: status, [("Last-Modified", lastModified), ("Date", Self.now)])
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            #expect(try await harness.loader.response(url).source == .network, "\(status)")
            #expect(await !harness.disk.contains(url.absoluteString), "\(status)")
            let fresh = try Self.route(harness, "/f\(status).png", status: status, [("Cache-Control", "max-age=60")])
            _ = try await harness.loader.response(fresh, options: .waitStoreCache)
            let reused = try await harness.loader.response(fresh)
            #expect(reused.source == .memory, "\(status)")
            #expect(reused.head?.statusCode == status, "\(status)")
        }
    }

    @Test("heuristic freshness: a 200 modified a day ago is fresh for a tenth of that, with no request")
    func heuristic() async throws {
        let harness = try Self.harness()
        let url = try Self.route(harness, "/h.png", [("Last-Modified", HTTPDate.format(Date().addingTimeInterval(-86_400))), ("Date", Self.now)])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let restarted = harness.restartedLoader()
        #expect(try await restarted.response(url).source == .disk)
        #expect(harness.requests("/h.png") == 1)
    }

    @Test("an Expires that is not an HTTP-date to the letter (two spaces) is already expired")
    func invalidExpires() async throws {
        let harness = try Self.harness()
        let url = try Self.route(harness, "/e.png", [("Expires", "Thu, 18  Aug  2050 02:01:18 GMT"), ("Date", Self.now)])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        _ = try await harness.loader.response(url)
        #expect(harness.requests("/e.png") == 2)
    }

    @Test("must-understand: a 200 with no-store is stored by a cache that knows 200's rules")
    func mustUnderstand() async throws {
        let harness = try Self.harness(.strictShared)
        let url = try Self.route(harness, "/mu.png", [("Cache-Control", "max-age=3600, no-store, must-understand")])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(try await harness.loader.response(url).source == .memory)
        #expect(harness.requests("/mu.png") == 1)
    }

    @Test("stale on error: a dropped connection serves the stale image, with the error in its head and in the metrics")
    func staleOnDisconnect() async throws {
        let metrics = RecordingMetricsFactory()
        let harness = try Self.harness(metrics: metrics)
        let url = try Self.route(harness, "/drop.png", [("Cache-Control", "max-age=0")])
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        _ = try Self.route(harness, "/drop.png", [], fault: .raw(Data()))
        let stale = try await harness.loader.response(url)
        #expect(stale.image.pixels == first.image.pixels)
        guard case .stale(.network(let failure)) = stale.source else {
            Issue.record("expected the stored image in place of the network error, got \(stale.source)")
            return
        }
        #expect(failure.kind == .connectionLost)
        #expect(stale.head?.headers[.age] != nil)
        #expect(metrics.counter("awi_loads_total", [("outcome", "stale_on_error")]) == 1)
        // One request for the load: the origin saw the first load and this one.
        #expect(harness.requests("/drop.png") == 2)
    }

    @Test("stale on error: a 503 serves stale only within stale-if-error; must-revalidate never serves stale")
    func staleOn503() async throws {
        let harness = try Self.harness()
        for (path, control, servesStale) in [
            ("/plain.png", "max-age=0", false), ("/sie.png", "max-age=0, stale-if-error=60", true),
            ("/strict.png", "max-age=0, must-revalidate, stale-if-error=60", false),
        ] {
            let url = try Self.route(harness, path, [("Cache-Control", control)])
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            harness.server.route(path, .status(503))
            do {
                let response = try await harness.loader.response(url)
                #expect(servesStale, "\(path)")
                #expect(response.source == .stale(.httpStatus(503)), "\(path)")
            } catch {
                #expect(!servesStale, "\(path)")
                #expect(error as? ImageError == .httpStatus(503), "\(path)")
            }
            #expect(harness.requests(path) == 2, "\(path)")
        }
    }

    @Test("the head: the origin's fields from the network; stored fields with Age from memory and disk; validated after a 304")
    func heads() async throws {
        let harness = try Self.harness()
        let url = try Self.route(harness, "/head.png", status: 203, [
            ("Cache-Control", "max-age=600"), ("X-Kept", "1"), ("Connection", "X-Hop"), ("X-Hop", "2"), ("Age", "30"),
        ])
        let downloaded = try await harness.loader.response(url, options: .waitStoreCache)
        let network = try #require(downloaded.head)
        #expect(downloaded.source == .network && network.statusCode == 203 && network.age == nil)
        #expect(network.headers[HTTPField.Name("X-Hop")!] == "2")
        let hit = try await harness.loader.response(url)
        let memory = try #require(hit.head)
        #expect(hit.source == .memory && memory.statusCode == 203)
        #expect(memory.headers[HTTPField.Name("X-Kept")!] == "1")
        // The connection's fields are not stored (RFC 9111 §3.1).
        #expect(memory.headers[HTTPField.Name("X-Hop")!] == nil)
        #expect((memory.age ?? 0) >= 30 && memory.headers[.age] == memory.age.map(String.init))
        let restarted = try await harness.restartedLoader().response(url)
        let disk = try #require(restarted.head)
        #expect(restarted.source == .disk && disk.statusCode == 203 && (disk.age ?? 0) >= 30)

        // A 304 updates the stored fields; the response is marked validated.
        var revalidated = LoopbackServer.Response(
            headers: [("Content-Type", "image/png"), ("Cache-Control", "no-cache"), ("X-Kept", "2")],
            body: try fixture("png", "rgb8.png"), etag: "\"t\""
        )
        revalidated.lastModified = nil
        harness.server.route("/head304.png", revalidated)
        let url304 = harness.server.url("/head304.png")
        _ = try await harness.loader.response(url304, options: .waitStoreCache)
        let original = revalidated
        harness.server.route("/head304.png") { _ in
            var response = original
            response.headers = [("Content-Type", "image/png"), ("Cache-Control", "no-cache"), ("X-Kept", "3")]
            return response
        }
        let confirmed = try await harness.loader.response(url304)
        let validated = try #require(confirmed.head)
        #expect(confirmed.source == .revalidated && validated.headers[.age] == nil)
        #expect(validated.headers[HTTPField.Name("X-Kept")!] == "3")
        #expect(harness.server.statistics("/head304.png").notModifiedResponses == 1)
    }

    @Test("Vary: a request for a variant not stored names the stored ones' ETags; a 304 selects one, which then serves it (RFC 9111 §4.3.1, §4.3.4)")
    func conditionalVariants() async throws {
        let harness = try Self.harness()
        let path = "/cv.png"
        let url = harness.server.url(path)
        let png = try fixture("png", "rgb8.png")
        let other = try fixture("png", "gray1.png")
        let variant = HTTPField.Name("X-Variant")!
        // The origin: variant "1" has ETag "a", variant "2" has ETag "b" and the other image;
        // variant "3" is the same representation as "a": If-None-Match naming "a" gets a 304.
        let notModified = Locked(0)
        harness.server.route(path) { request in
            let tags = request[header: "If-None-Match"] ?? ""
            let headers: [(String, String)] = [("Content-Type", "image/png"), ("Cache-Control", "max-age=600"), ("Vary", "X-Variant")]
            switch request[header: "X-Variant"] {
            case "2": return .init(headers: headers + [("ETag", "\"b\"")], body: other)
            case "3" where tags.contains("\"a\""):
                notModified.withLock { $0 += 1 }
                return .init(status: 304, headers: headers + [("ETag", "\"a\"")])
            default: return .init(headers: headers + [("ETag", "\"a\"")], body: png)
            }
        }
        func context(_ value: String) -> ImageContext {
            var context = ImageContext()
            context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [variant])
            context.requestModifier = RequestModifier.headers([variant: value])
            return context
        }
        let first = try await harness.loader.response(url, options: .waitStoreCache, context: context("1"))
        let second = try await harness.loader.response(url, options: .waitStoreCache, context: context("2"))
        #expect(harness.server.statistics(path).requestHeaders.last?["if-none-match"] == "\"a\"")
        #expect(second.image.pixels != first.image.pixels)
        // A third variant names both stored responses; the 304 selects "a".
        let third = try await harness.loader.response(url, options: .waitStoreCache, context: context("3"))
        #expect(harness.server.statistics(path).requestHeaders.last?["if-none-match"] == "\"a\", \"b\"")
        #expect(notModified.withLock { $0 } == 1)
        #expect(third.image.pixels == first.image.pixels)
        #expect(third.source == .revalidated)
        // Stored under its own keys now: fresh, no request, from a new loader too.
        #expect(try await harness.restartedLoader().response(url, context: context("3")).source == .disk)
        #expect(harness.requests(path) == 3)
    }

    @Test("Vary: removing a variant's cached image removes that variant only")
    func removeVariant() async throws {
        let harness = try Self.harness()
        let url = try Self.route(harness, "/rv.png", [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")])
        func context(_ language: String) -> ImageContext {
            var context = ImageContext()
            context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [.acceptLanguage])
            context.requestModifier = RequestModifier.headers([.acceptLanguage: language])
            return context
        }
        for language in ["fr", "de"] { _ = try await harness.loader.response(url, options: .waitStoreCache, context: context(language)) }
        try await harness.loader.removeCachedImage(for: ImageRequest(url: url, context: context("de")))
        #expect(try await harness.loader.response(url, context: context("fr")).source == .memory)
        #expect(try await harness.loader.response(url, options: .waitStoreCache, context: context("de")).source == .network)
        #expect(harness.requests("/rv.png") == 3)
    }

    @Test("Vary: values are compared normalised (case of Accept-Language, spaces, lines combined)")
    func varyNormalised() async throws {
        let harness = try Self.harness()
        let url = try Self.route(harness, "/vn.png", [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        func context(_ language: String) -> ImageContext {
            var context = ImageContext()
            context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [.acceptLanguage])
            context.requestModifier = RequestModifier.headers([.acceptLanguage: language])
            return context
        }
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: context("en, de"))
        #expect(try await harness.loader.response(url, context: context("EN,  De")).source == .memory)
        #expect(try await harness.loader.response(url, context: context("de, en")).source == .network)
        #expect(harness.requests("/vn.png") == 2)
    }
}
