import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

@Suite("ImageLoader: options, context and precedence", .timeLimit(.minutes(2)))
struct ImageLoaderOptionsTests {
    @Test("fromCacheOnly: a miss fails with cacheMiss and sends nothing; a hit is served")
    func fromCacheOnly() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/c.png", try fixture("png", "rgb8.png"))
        await #expect(throws: ImageError.cacheMiss) { try await harness.loader.response(url, options: .fromCacheOnly) }
        #expect(harness.requests("/c.png") == 0)
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(try await harness.loader.response(url, options: .fromCacheOnly).source == .memory)
        #expect(try await harness.restartedLoader().response(url, options: .fromCacheOnly).source == .disk)
        #expect(harness.requests("/c.png") == 1)
    }

    @Test("fromCacheOnly misses at once instead of joining a download in flight (the two never share work)")
    func fromCacheOnlyDoesNotJoin() async throws {
        let harness = try PipelineHarness()
        let png = try fixture("png", "rgb8.png")
        let gate = Gate()
        let url = harness.serveHeld("/held.png", png, contentType: "image/png", afterBytes: 16, by: gate)
        // A load whose download the server holds mid-body
        let loading = Task { try await harness.loader.response(url) }
        #expect(await pipelineEventually { harness.server.statistics("/held.png").bodyBytesSent >= 16 })
        // A cache-only call misses at once instead of waiting for that download
        await #expect(throws: ImageError.cacheMiss) { try await harness.loader.response(url, options: .fromCacheOnly) }
        await #expect(throws: ImageError.cacheMiss) {
            for try await _ in harness.loader.images(url, options: .fromCacheOnly) {}
        }
        gate.open(1)
        #expect(try await loading.value.source == .network)
        #expect(harness.requests("/held.png") == 1)
    }

    @Test("fromLoaderOnly: downloads even when cached")
    func fromLoaderOnly() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/l.png", try fixture("png", "rgb8.png"))
        _ = try await harness.loader.response(url)
        let again = try await harness.loader.response(url, options: .fromLoaderOnly)
        #expect(again.source == .network)
        #expect(harness.requests("/l.png") == 2)
    }

    @Test("refreshCached: cached first, a 304 adds nothing, a changed image follows")
    func refreshCached() async throws {
        // Given an image with an ETag, loaded and stored
        let harness = try PipelineHarness()
        let v1 = try fixture("png", "rgb8.png"), v2 = try fixture("png", "rgba8.png")
        harness.server.route("/r.png", LoopbackServer.Response(headers: [("Content-Type", "image/png")], body: v1, etag: "\"v1\""))
        let url = harness.server.url("/r.png")
        _ = try await harness.loader.response(url, options: .waitStoreCache)

        // When refreshed while unchanged
        var kinds: [ImageSource] = []
        for try await event in harness.loader.events(url, options: .refreshCached) {
            if case .finished(let response) = event { kinds.append(response.source) }
        }
        // Then only the cached response came, after a conditional request
        #expect(kinds == [.memory])
        #expect(harness.requests("/r.png") == 2)
        #expect(harness.server.statistics("/r.png").requestHeaders.last?.first { $0.key.lowercased() == "if-none-match" }?.value == "\"v1\"")

        // When the server has a new image
        harness.server.route("/r.png", LoopbackServer.Response(headers: [("Content-Type", "image/png")], body: v2, etag: "\"v2\""))
        var responses: [ImageResponse] = []
        for try await event in harness.loader.events(url, options: .refreshCached) {
            if case .finished(let response) = event { responses.append(response) }
        }
        // Then the cached image comes first and the new one follows and replaces it in the caches
        #expect(responses.map(\.source) == [.memory, .network])
        let fresh = try ImageCoderRegistry.allFormats.decode(v2)
        #expect(try #require(responses.last?.image).hasSamePixels(as: fresh))
        #expect(try #require(await harness.memory.image(forKey: url.absoluteString)).hasSamePixels(as: fresh))
        #expect(try await harness.loader.response(url, options: [.refreshCached, .waitStoreCache]).image.hasSamePixels(as: fresh) == true)
    }

    @Test("queryMemoryData fills data on a memory hit; data(for:) returns bytes and their head without decoding")
    func dataOptions() async throws {
        let harness = try PipelineHarness()
        let png = try fixture("png", "gray8.png")
        let url = harness.serve("/d.png", png)
        let raw = try await harness.loader.data(for: ImageRequest(url: url, options: .waitStoreCache))
        #expect(raw.source == .network)
        #expect(raw.head?.statusCode == 200 && raw.head?.headers[.contentType] == "image/png")
        #expect(raw.data == png)
        #expect(harness.decodes.count == 0)
        #expect(await harness.memory.image(forKey: url.absoluteString) == nil)
        #expect(await harness.disk.contains(url.absoluteString))

        _ = try await harness.loader.response(url)
        let plain = try await harness.loader.response(url)
        let withData = try await harness.loader.response(url, options: .queryMemoryData)
        #expect(plain.source == .memory && plain.data == nil)
        #expect(withData.source == .memory && withData.data == png)
    }

    @Test("storeCacheType none stores nothing; queryCacheType disk skips memory")
    func cacheTypes() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/t.png", try fixture("png", "rgb8.png"))
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: ImageContext.tiers(store: []))
        #expect(await harness.memory.image(forKey: url.absoluteString) == nil)
        #expect(await !harness.disk.contains(url.absoluteString))

        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let fromDisk = try await harness.loader.response(url, context: ImageContext.tiers(query: .disk))
        #expect(fromDisk.source == .disk)
        let noCache = try await harness.loader.response(url, context: ImageContext.tiers(query: []))
        #expect(noCache.source == .network)
        #expect(harness.requests("/t.png") == 3)
    }

    @Test("failed URLs: 404 blocks without a request, retryFailed retries, success unblocks; 5xx never blocks")
    func failedURLs() async throws {
        let harness = try PipelineHarness()
        harness.server.route("/gone.png", .status(404))
        let url = harness.server.url("/gone.png")
        await #expect(throws: ImageError.httpStatus(404)) { try await harness.loader.response(url) }
        await #expect(throws: ImageError.blockedURL(url)) { try await harness.loader.response(url) }
        #expect(harness.requests("/gone.png") == 1)
        #expect(harness.loader.isBlocked(url))

        harness.server.route("/gone.png", .ok(try fixture("png", "rgb8.png"), contentType: "image/png"))
        #expect(try await harness.loader.response(url, options: .retryFailed).source == .network)
        #expect(!harness.loader.isBlocked(url))
        #expect(harness.requests("/gone.png") == 2)

        // Not an image: blocked too.
        let html = harness.serve("/page", Data("<!DOCTYPE html><html><body>login</body></html>".utf8), contentType: "text/html")
        await #expect(throws: ImageError.unsupportedFormat(.unknown)) { try await harness.loader.response(html) }
        #expect(harness.loader.isBlocked(html))

        // Server errors and timeouts are worth retrying.
        harness.server.route("/busy.png", .status(500))
        let busy = harness.server.url("/busy.png")
        await #expect(throws: ImageError.httpStatus(500)) { try await harness.loader.response(busy) }
        await #expect(throws: ImageError.httpStatus(500)) { try await harness.loader.response(busy) }
        #expect(harness.requests("/busy.png") == 2)
    }

    @Test("scheme allow-list and URL checks fail before any work")
    func urlChecks() async throws {
        let harness = try PipelineHarness()
        await #expect(throws: ImageError.unsupportedScheme("ftp")) { try await harness.loader.response(URL(string: "ftp://127.0.0.1/a.png")!) }
        await #expect(throws: ImageError.unsupportedScheme("file")) { try await harness.loader.response(URL(fileURLWithPath: "/etc/passwd")) }
        await #expect(throws: ImageError.self) { try await harness.loader.response(URL(string: "http:///nohost.png")!) }
        #expect(harness.loader.tasks.started == 0)
    }

    @Test("the data loader's scheme list is the loader's: one place to allow file:// or refuse http")
    func schemesHaveOneOwner() async throws {
        // Given a PNG on disk and a loader whose curl loader allows `file`
        let harness = try PipelineHarness()
        let png = try fixture("formats", "sample.png")
        let file = harness.directory.appendingPathComponent("local.png")
        try FileManager.default.createDirectory(at: harness.directory, withIntermediateDirectories: true)
        try png.write(to: file)
        var curl = CurlDataLoader.Configuration()
        curl.allowedSchemes.insert("file")
        let fileLoader = try PipelineHarness { $0.dataLoader = CurlDataLoader(configuration: curl) }.loader
        // When it loads the file URL, and a loader whose curl loader allows
        // https only loads an http URL of the loopback server
        let image = try await fileLoader.response(file)
        curl.allowedSchemes = ["https"]
        let httpsOnly = try PipelineHarness { $0.dataLoader = CurlDataLoader(configuration: curl) }
        let url = httpsOnly.serve("/a.png", png)
        // Then the file decodes with no second setting, and http fails
        // before any request reaches the server
        #expect(image.image.size == (try ImageCoderRegistry.allFormats.decode(png, options: .init())).size)
        #expect(image.image.width > 0)
        await #expect(throws: ImageError.unsupportedScheme("http")) { try await httpsOnly.loader.response(url) }
        #expect(httpsOnly.requests("/a.png") == 0)
        #expect(httpsOnly.loader.tasks.started == 0)
    }

    @Test("precedence: options processor › per-call context › configuration › defaults")
    func precedence() async throws {
        let jpeg = try fixture("jpeg", "large.jpg")
        func longestSide(_ loader: ImageLoader, _ url: URL, _ context: ImageContext = ImageContext()) async throws -> Int {
            let image = try await loader.response(url, options: .fromLoaderOnly, context: context).image
            return max(image.width, image.height)
        }
        // Defaults: full size.
        let plain = try PipelineHarness()
        let full = try ImageCoderRegistry.allFormats.decode(jpeg)
        #expect(try await longestSide(plain.loader, plain.serve("/p.jpg", jpeg)) == max(full.width, full.height))

        // Configuration over defaults, per-call over configuration.
        let configured = try PipelineHarness { $0.defaultContext.thumbnail = ThumbnailOptions(size: PixelSize(width: 40, height: 40)) }
        let url = configured.serve("/p.jpg", jpeg)
        #expect(try await longestSide(configured.loader, url) == 40)
        #expect(try await longestSide(configured.loader, url, ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 24, height: 24)))) == 24)

        // The processor over everything.
        let processed = try PipelineHarness {
            $0.defaultContext.thumbnail = ThumbnailOptions(size: PixelSize(width: 40, height: 40))
            $0.optionsProcessor = { request in
                var request = request
                request.context.thumbnail = ThumbnailOptions(width: 10, height: 10)
                return request
            }
        }
        let processedURL = processed.serve("/p.jpg", jpeg)
        #expect(try await longestSide(processed.loader, processedURL, ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 24, height: 24)))) == 10)
    }

    @Test("cache key filter: URLs with different signatures share one entry")
    func cacheKeyFilter() async throws {
        let filter = CacheKeyFilter { url in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.query = nil
            return components?.string
        }
        let harness = try PipelineHarness { $0.defaultContext.cacheKeyFilter = filter }
        _ = harness.serve("/k.png", try fixture("png", "rgb8.png"))
        let a = URL(string: harness.server.url("/k.png").absoluteString + "?sig=1")!
        let b = URL(string: harness.server.url("/k.png").absoluteString + "?sig=2")!
        #expect(try await harness.loader.response(a).source == .network)
        #expect(try await harness.loader.response(b).source == .memory)
        #expect(harness.requests("/k.png") == 1)
        #expect(await harness.memory.image(forKey: harness.server.url("/k.png").absoluteString) != nil)
    }

    @Test("cache serializer: the disk holds what it returns")
    func cacheSerializer() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/s.jpg", try fixture("jpeg", "large.jpg"), contentType: "image/jpeg")
        let serializer = CacheSerializer { image, _, _ in
            image.flatMap { try? ImageCoderRegistry.allFormats.encode($0, as: .png) }
        }
        let response = try await harness.loader.response(url, options: .waitStoreCache, context: ImageContext(cacheSerializer: serializer))
        let stored = try #require(try await harness.disk.data(forKey: url.absoluteString))
        #expect(ImageFormat.detect(stored) == .png)
        #expect(try ImageCoderRegistry.allFormats.decode(stored).hasSamePixels(as: response.image))
    }

    @Test("transformers: result cached under key + transformer key, original on disk, other transforms need no download")
    func transformers() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/x.jpg", try fixture("jpeg", "large.jpg"), contentType: "image/jpeg")
        let resize = ImageTransformers.Resize(width: 20, height: 20, mode: .fill)
        let response = try await harness.loader.response(url, options: .waitStoreCache, context: ImageContext(transformer: resize))
        let image = response.image
        #expect(image.size == PixelSize(width: 20, height: 20))

        let resultKey = url.absoluteString + "#transform=" + resize.key
        #expect(await harness.memory.image(forKey: resultKey) != nil)
        #expect(await harness.disk.contains(resultKey))
        #expect(await harness.disk.contains(url.absoluteString))
        // The original's pixels are not kept in memory by default (originalStoreCacheType .disk).
        #expect(await harness.memory.image(forKey: url.absoluteString) == nil)

        // A restarted process: same transform from disk, another transform from the original on disk.
        let restarted = harness.restartedLoader()
        let again = try await restarted.response(url, context: ImageContext(transformer: resize))
        #expect(again.source == .disk)
        #expect(again.image.size == image.size)
        let flipped = try await restarted.response(url, context: ImageContext(transformer: ImageTransformers.Flip(horizontal: true, vertical: false)))
        #expect(flipped.source == .disk)
        #expect(harness.requests("/x.jpg") == 1)
    }

    @Test("request modifier adds headers or refuses; response modifier rejects")
    func modifiers() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/h.png", try fixture("png", "rgb8.png"))
        let addToken = RequestModifier { request in
            var request = request
            try request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            return request
        }
        _ = try await harness.loader.response(url, context: ImageContext(requestModifier: addToken))
        #expect(harness.server.statistics("/h.png").requestHeaders.last?.first { $0.key.lowercased() == "authorization" }?.value == "Bearer secret")

        let refuse = RequestModifier { _ in nil }
        await #expect(throws: ImageError.self) {
            try await harness.loader.response(url, options: .fromLoaderOnly, context: ImageContext(requestModifier: refuse))
        }
        #expect(harness.requests("/h.png") == 1)

        let rejectAll = ResponseModifier { _ in nil }
        await #expect(throws: ImageError.self) {
            try await harness.loader.response(url, options: .fromLoaderOnly, context: ImageContext(responseModifier: rejectAll))
        }
    }

    @Test("scaleDownLargeImages keeps decoded bytes under the configured limit")
    func scaleDown() async throws {
        let harness = try PipelineHarness { $0.decodingLimits.scaleDownLimitBytes = 16 * 1024 }
        let url = harness.serve("/big.jpg", try fixture("jpeg", "large.jpg"), contentType: "image/jpeg")
        let image = try await harness.loader.response(url, options: .scaleDownLargeImages).image
        #expect(image.width * image.height * 4 <= 16 * 1024)
        let full = try await harness.loader.response(url).image
        #expect(full.width > image.width)
        #expect(harness.requests("/big.jpg") == 1 || harness.requests("/big.jpg") == 2)
    }
}
