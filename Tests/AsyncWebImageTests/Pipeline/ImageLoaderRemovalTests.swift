import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// `ImageLoader.removeCachedImage(_:options:context:cacheType:)`: after it,
/// the same load downloads again; other results of the URL stay cached.
@Suite("ImageLoader: removing a URL's cached image", .timeLimit(.minutes(2)))
struct ImageLoaderRemovalTests {
    @Test("a thumbnail load, removed with its context, downloads again; the plain load's entries and a header variant's are separate")
    func removesWhatTheLoadFinds() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/a.png", try fixture("png", "rgb8.png"))
        let thumbnail = ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 16, height: 16)))
        var signed = ImageContext()
        signed.requestModifier = RequestModifier.headers([.authorization: "Bearer A"])
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: thumbnail)
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: signed)
        #expect(harness.requests("/a.png") == 2)

        // What a Kingfisher user tries first leaves the thumbnail in memory
        try await harness.cache.removeImage(forKey: url.absoluteString)
        #expect(try await harness.loader.response(url, context: thumbnail).source == .memory)

        // While removing it as loaded forgets the thumbnail and the data
        try await harness.loader.removeCachedImage(for: ImageRequest(url: url, context: thumbnail))
        let again = try await harness.loader.response(url, options: .waitStoreCache, context: thumbnail)
        #expect(again.source == .network)
        #expect(again.image.size.width == 16)
        #expect(harness.requests("/a.png") == 3)

        // The header variant is its own entry, removed with its own context
        #expect(try await harness.loader.response(url, context: signed).source == .memory)
        try await harness.loader.removeCachedImage(for: ImageRequest(url: url, context: signed))
        #expect(try await harness.loader.response(url, context: signed).source == .network)
        #expect(harness.requests("/a.png") == 4)
    }
}
