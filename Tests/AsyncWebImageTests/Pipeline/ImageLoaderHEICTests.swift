import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageHEIF

/// HEIC through the loader with the default coders: since the derived-image
/// check, `HEIFCoder` is built in, so a phone photo's URL loads like a JPEG's.
@Suite("ImageLoader HEIC", .timeLimit(.minutes(1)))
struct ImageLoaderHEICTests {
    @Test("a HEIC URL decodes with the built-in coders as heif-convert does, then hits memory and, restarted, disk")
    func loadsAndCaches() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/photo.heic", try HEIFFixture.data("rgb8.heic"), contentType: "image/heic")
        let reference = try HEIFFixture.reference("rgb8.ref.png")

        let first = try await harness.loader.response(url)
        #expect(first.source == .network)
        let image = first.image
        #expect(image.format == .heic)
        #expect(image.hasSamePixels(as: reference))
        let second = try await harness.loader.response(url)
        #expect(second.source == .memory)
        #expect(harness.requests("/photo.heic") == 1)

        // The disk write happens off the request path; wait for the file.
        #expect(await pipelineEventually { await harness.disk.contains(url.absoluteString) })
        let restarted = try await harness.restartedLoader().response(url)
        #expect(restarted.source == .disk)
        #expect(restarted.image.hasSamePixels(as: reference))
        #expect(harness.requests("/photo.heic") == 1)
    }

    @Test("a HEIC thumbnail keeps the aspect ratio within the box")
    func thumbnail() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/thumb.heic", try HEIFFixture.data("rgba8.heic"), contentType: "image/heic")
        let response = try await harness.loader.response(url, context: ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 32, height: 32))))
        let image = response.image
        #expect(image.size == PixelSize(width: 32, height: 24))
        #expect(image.pixelFormat == .rgba8)
    }

    @Test("the file that crashed libheif 1.15 fails the load with a typed error, and the loader goes on")
    func hostileFile() async throws {
        let harness = try PipelineHarness()
        let bad = harness.serve("/bad.heic", try fixture("fuzz", "heic-libheif-open-finding.heic"), contentType: "image/heic")
        await #expect(throws: ImageError.self) { try await harness.loader.response(bad) }
        let good = harness.serve("/good.heic", try HEIFFixture.data("rgb8.heic"), contentType: "image/heic")
        #expect(try await harness.loader.response(good).image.size == PixelSize(width: 64, height: 48))
    }
}
