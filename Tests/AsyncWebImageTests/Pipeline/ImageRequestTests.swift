import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// The request value and the calls that take it: identity, thumbnails in
/// one setting, data without decoding, what is cached, removal.
@Suite("ImageRequest", .timeLimit(.minutes(1)))
struct ImageRequestTests {
    static let url = URL(string: "https://images.example/a.png?v=1")!

    /// 300 × 100 in three vertical bands: red, green, blue (100 px each).
    static func bands() throws -> Data {
        var pixels: [UInt8] = []
        for _ in 0..<100 {
            for x in 0..<300 {
                pixels += x < 100 ? [255, 0, 0] : x < 200 ? [0, 255, 0] : [0, 0, 255]
            }
        }
        let image = try Image(width: 300, height: 100, pixelFormat: .rgb8, pixels: pixels)
        return try ImageCoderRegistry.builtIn.encode(image, as: .png)
    }

    @Test("requests naming the same result are equal and hash alike; anything that changes the result tells them apart")
    func identity() throws {
        // Given a plain request and variations of it
        let plain = ImageRequest(url: Self.url)
        let thumbnail = ImageRequest(url: Self.url, thumbnail: ThumbnailOptions(maxPixelSize: 64))
        let fill = ImageRequest(url: Self.url, thumbnail: ThumbnailOptions(width: 64, height: 64, contentMode: .fill))
        let transformed = ImageRequest(url: Self.url, context: ImageContext(transformer: ImageTransformers.Grayscale()))
        let filter = CacheKeyFilter { url in url.absoluteString.components(separatedBy: "?")[0] }
        let filteredA = ImageRequest(url: Self.url, context: ImageContext(cacheKeyFilter: filter))
        let filteredB = ImageRequest(url: URL(string: "https://images.example/a.png?v=2")!, context: ImageContext(cacheKeyFilter: filter))

        // Then equal values are equal, and each variation differs
        #expect(plain == ImageRequest(url: Self.url))
        #expect(Set([plain, ImageRequest(url: Self.url)]).count == 1)
        #expect(Set([plain, thumbnail, fill, transformed, plain.with(priority: .high), plain.with(options: .progressiveLoad)]).count == 6)
        // The key filter is part of the identity: one image behind two signed URLs
        #expect(filteredA == filteredB)
        #expect(filteredA.hashValue == filteredB.hashValue)
    }

    @Test("a request from a string: a URL, or a typed invalidURL")
    func fromString() throws {
        #expect(try ImageRequest(string: "https://images.example/b.jpg").url.host == "images.example")
        #expect(throws: ImageError.invalidURL("")) { try ImageRequest(string: "") }
    }

    @Test("ThumbnailOptions: fill is exactly the box, centre-cropped; cover covers it; stretch is the box; fit fits inside")
    func thumbnailModes() async throws {
        // Given a 300 × 100 image of red, green and blue bands
        let harness = try PipelineHarness()
        let url = harness.serve("/bands.png", try Self.bands())

        // When it is loaded in each content mode
        func load(_ mode: ThumbnailOptions.ContentMode, _ width: Int, _ height: Int) async throws -> Image {
            try await harness.loader.image(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: width, height: height, contentMode: mode)))
        }
        let fill = try await load(.fill, 50, 50)
        let cover = try await load(.cover, 50, 50)
        let stretch = try await load(.stretch, 50, 20)
        let fit = try await load(.fit, 60, 60)

        // Then each has its size, and the fill crop kept the centre (green)
        // band only (beyond the Lanczos-3 kernel's reach of the band edges
        // at the crop's sides: 3 output pixels at this 2:1 reduction)
        #expect(fill.size == PixelSize(width: 50, height: 50))
        #expect(fill.pixel(x: 4, y: 25)?.prefix(3) == [0, 255, 0] && fill.pixel(x: 45, y: 25)?.prefix(3) == [0, 255, 0])
        #expect(cover.size == PixelSize(width: 150, height: 50))
        #expect(stretch.size == PixelSize(width: 50, height: 20))
        #expect(fit.size == PixelSize(width: 60, height: 20))
        // One download served all four
        #expect(harness.requests("/bands.png") == 1)
    }

    @Test("image(for:), then data(for:) from disk without decoding; cachedTier and isCached follow the tiers; removeCachedImage(for:) empties them")
    func cachedTiers() async throws {
        // Given a served image and a request for a thumbnail of it
        let harness = try PipelineHarness()
        let png = try Self.bands()
        let url = harness.serve("/t.png", png)
        let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 30), options: .waitStoreCache)
        #expect(try await harness.loader.cachedTier(of: request) == .none)
        #expect(await !harness.loader.isCached(request))

        // When it is loaded
        let image = try await harness.loader.image(for: request)

        // Then it is in memory, and its data on disk comes back undecoded
        #expect(image.size == PixelSize(width: 30, height: 10))
        #expect(try await harness.loader.cachedTier(of: request) == .memory)
        let decodesBefore = harness.decodes.count
        let data = try await harness.loader.data(for: ImageRequest(url: url))
        #expect(data.source == .disk && data.data == png)
        // The head stored with the entry comes back with it, marked as the disk's
        #expect(data.head?.statusCode == 200 && data.source == .disk)
        #expect(harness.decodes.count == decodesBefore)
        // A restarted loader sees it on disk
        #expect(try await harness.restartedLoader().cachedTier(of: request) == .disk)

        // When it is removed as loaded
        try await harness.loader.removeCachedImage(for: request)

        // Then no tier has it, and the next load downloads again
        #expect(await !harness.loader.isCached(request))
        _ = try await harness.loader.image(for: request)
        #expect(harness.requests("/t.png") == 2)
    }

    @Test("the options processor gets the request with the defaults merged in, and may change its URL and priority")
    func optionsProcessor() async throws {
        // Given a loader whose processor sends every request for /old.png to /new.png, and a default thumbnail
        let png = try Self.bands()
        let seen = Locked<[ImageRequest]>([])
        let harness = try PipelineHarness {
            $0.defaultContext.thumbnail = ThumbnailOptions(maxPixelSize: 60)
            $0.optionsProcessor = { request in
                seen.withLock { $0.append(request) }
                var request = request
                request.url = URL(string: request.url.absoluteString.replacingOccurrences(of: "/old.png", with: "/new.png"))!
                return request
            }
        }
        _ = harness.serve("/new.png", png)
        let old = harness.server.url("/old.png")

        // When /old.png is loaded at high priority
        let image = try await harness.loader.image(for: ImageRequest(url: old, priority: .high))

        // Then the processor saw the merged context and the priority, and /new.png was loaded
        #expect(image.size == PixelSize(width: 60, height: 20))
        let request = try #require(seen.withLock { $0.first })
        #expect(request.priority == .high && request.context.thumbnail == ThumbnailOptions(maxPixelSize: 60))
        #expect(harness.requests("/new.png") == 1 && harness.requests("/old.png") == 0)
    }

    @Test("ImageError's localizedDescription says what went wrong")
    func localizedDescription() {
        let error: any Error = ImageError.httpStatus(404)
        #expect(error.localizedDescription == "HTTP status 404")
    }

    @Test("rgba8Pixels: four bytes a pixel, no row padding, gray copied to RGB with opaque alpha")
    func rgba8() throws {
        let padded = try Image(width: 3, height: 2, pixelFormat: .gray8, bytesPerRow: 8, pixels: [1, 2, 3, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0])
        #expect(padded.rgba8Pixels == [1, 1, 1, 255, 2, 2, 2, 255, 3, 3, 3, 255, 4, 4, 4, 255, 5, 5, 5, 255, 6, 6, 6, 255])
        let rgba = try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [9, 8, 7, 6])
        #expect(rgba.rgba8Pixels == [9, 8, 7, 6])
    }
}
