import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// Animated GIFs through the loader: the image carries its animation, the
/// memory cache counts its real cost, and the animation options
/// (`decodeFirstFrameOnly`, `preloadAllFrames`, `transformAnimatedImage`)
/// do what ``ImageOptions`` documents, each under its own result key.
@Suite("ImageLoader: animated images", .timeLimit(.minutes(2)))
struct ImageLoaderAnimationTests {
    static let frameBytes = 128 * 128 * 4

    @Test("an animated GIF loads as frame 0 carrying its animation; one frame decoded; the memory cache counts frame 0 + the buffer bound")
    func animatedByDefault() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/a.gif", try fixture("gif", "anim-300.gif"), contentType: "image/gif")
        let response = try await harness.loader.response(url, options: .waitStoreCache)
        let image = response.image
        let animation = try #require(image.animation)
        #expect(animation.frameCount == 300)
        #expect(animation.loopCount == 2)
        #expect(animation.framesDecoded == 1)
        #expect(image.pixel(x: 5, y: 5) == [0, 0, 0, 255])
        #expect(try await animation.frame(at: 77).pixel(x: 5, y: 5) == [77, 0, 0, 255])
        #expect(image.cost == Self.frameBytes + AnimatedImage.defaultMaxBufferBytes)
        #expect(await harness.memory.totalCost == Self.frameBytes + AnimatedImage.defaultMaxBufferBytes)
        // A memory hit is the same animation
        let again = try await harness.loader.response(url)
        #expect(again.source == .memory)
        #expect(again.image.animation === animation)
        #expect(harness.requests("/a.gif") == 1)
    }

    @Test("Configuration.maxAnimationPixelCount bounds frames × canvas before any frame is decoded; the default lets the same file through")
    func animationPixelLimit() async throws {
        // Given the 300-frame 128×128 GIF (4,915,200 pixels over its frames)
        let harness = try PipelineHarness { $0.decodingLimits.maxAnimationPixelCount = 4_000_000 }
        let url = harness.serve("/a.gif", try fixture("gif", "anim-300.gif"), contentType: "image/gif")
        // Then a loader whose limit is below that refuses it with the typed error
        await #expect(throws: ImageError.tooLarge(.animationPixels, limit: 4_000_000, actual: 4_915_200)) {
            try await harness.loader.response(url)
        }
        // While one with the default limit loads it
        let defaults = harness.restartedLoader()
        #expect(try await defaults.response(url).image.animation?.frameCount == 300)
    }

    @Test("preloadAllFrames decodes all 300 frames before the load returns, counts them all, and is a result of its own")
    func preloadAllFrames() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/a.gif", try fixture("gif", "anim-300.gif"), contentType: "image/gif")
        let lazy = try #require(try await harness.loader.response(url, options: .waitStoreCache).image.animation)
        #expect(lazy.framesDecoded == 1)
        let response = try await harness.loader.response(url, options: .preloadAllFrames)
        #expect(response.source != .memory)
        let animation = try #require(response.image.animation)
        #expect(animation !== lazy)
        #expect(animation.isPreloaded)
        #expect(animation.framesDecoded == 300)
        #expect(response.image.cost == Self.frameBytes + 300 * Self.frameBytes)
        #expect(try await harness.loader.response(url, options: .preloadAllFrames).image.animation === animation)
    }

    @Test("decodeFirstFrameOnly gives a still image equal to ImageMagick's first frame, under its own key")
    func firstFrameOnly() async throws {
        let harness = try PipelineHarness()
        let directory = TemporaryDirectory("anim-loader")
        let data = try AnimationFixtures.makeGIF(GIFAnimationTests.disposalArguments, in: directory)
        let reference = try AnimationFixtures.coalescedFrames(of: directory.appending("anim.gif"), in: directory)
        let url = harness.serve("/d.gif", data, contentType: "image/gif")
        let animated = try await harness.loader.response(url).image
        #expect(animated.animation?.frameCount == 6)
        let response = try await harness.loader.response(url, options: .decodeFirstFrameOnly)
        #expect(response.source != .memory)
        let still = response.image
        #expect(still.animation == nil)
        #expect(still.cost == still.pixels.count)
        #expect(reference[0].maximumDifference(from: still) == 0)
        #expect(reference[0].maximumDifference(from: animated) == 0)
    }

    @Test("a transformer without transformAnimatedImage transforms the first frame only (a still result); with it every frame, still animated")
    func transformAnimatedImage() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/a.gif", try fixture("gif", "anim-300.gif"), contentType: "image/gif")
        let resize = ImageTransformers.Resize(width: 16, height: 16, mode: .fill)
        let context = ImageContext(transformer: resize)
        let still = try await harness.loader.response(url, options: .waitStoreCache, context: context).image
        #expect(still.size == PixelSize(width: 16, height: 16))
        #expect(still.animation == nil)
        // The still result is written to disk as usual
        #expect(await harness.disk.contains(url.absoluteString + "#transform=" + resize.key))

        let response = try await harness.loader.response(url, options: [.transformAnimatedImage, .waitStoreCache], context: context)
        #expect(response.source != .memory)
        let first = response.image
        let animation = try #require(first.animation)
        #expect(first.size == PixelSize(width: 16, height: 16))
        // The memory cache counts frames at their transformed size: frame 0 + all 300 (they fit in the bound)
        #expect(first.cost == 16 * 16 * 4 + 300 * 16 * 16 * 4)
        for index in [0, 1, 150, 299] {
            let frame = try await animation.frame(at: index)
            #expect(frame.size == PixelSize(width: 16, height: 16))
            #expect(frame.pixel(x: 8, y: 8) == [UInt8(index % 256), UInt8(index / 256 * 40), 0, 255])
        }
        #expect(await harness.memory.image(forKey: url.absoluteString + "#transform=" + resize.key + "#animated")?.animation === animation)
        let hit = try await harness.loader.response(url, options: .transformAnimatedImage, context: context)
        #expect(hit.source == .memory)
        #expect(hit.image.animation === animation)
        #expect(try await harness.loader.response(url, context: context).image.animation == nil)
        // Not written as a still image: a restarted process re-decodes the original and stays animated
        #expect(await !harness.disk.contains(url.absoluteString + "#transform=" + resize.key + "#animated"))
        let restarted = try await harness.restartedLoader().response(url, options: .transformAnimatedImage, context: context)
        #expect(restarted.source == .disk)
        #expect(restarted.image.animation?.frameCount == 300)
        #expect(try await restarted.image.animation?.frame(at: 42).size == PixelSize(width: 16, height: 16))
        #expect(harness.requests("/a.gif") == 1)
    }

    @Test("a thumbnail size resamples every frame of an animation")
    func thumbnailFrames() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/a.gif", try fixture("gif", "anim-300.gif"), contentType: "image/gif")
        let image = try await harness.loader.response(url, context: ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 32, height: 32)))).image
        #expect(image.size == PixelSize(width: 32, height: 32))
        let frame = try #require(try await image.animation?.frame(at: 200))
        #expect(frame.size == PixelSize(width: 32, height: 32))
        #expect(frame.pixel(x: 3, y: 3) == [200, 0, 0, 255])
    }
}
