import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

@Suite("ImageLoader: progressive previews", .timeLimit(.minutes(2)))
struct ImageLoaderProgressiveTests {
    static func trickled(_ harness: PipelineHarness, _ path: String, _ data: Data, piece: Int = 1024, every: Duration = .milliseconds(30)) -> URL {
        harness.server.route(path, LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: data,
            trickle: .init(bytesPerPiece: piece, interval: every)))
        return harness.server.url(path)
    }

    @Test("a trickled progressive JPEG yields previews in order, then the final image, equal to a full decode")
    func previews() async throws {
        // Given a progressive JPEG arriving slowly
        let harness = try PipelineHarness(progressiveCoders: true)
        let jpeg = try fixture("jpeg", "large-progressive.jpg")
        let url = Self.trickled(harness, "/p.jpg", jpeg)
        let full = try ImageCoderRegistry.allFormats.decode(jpeg)

        // When its events are consumed with .progressiveLoad
        var previews: [Image] = []
        var progress: [Int64] = []
        var final: ImageResponse?
        for try await event in harness.loader.events(url, options: .progressiveLoad) {
            #expect(final == nil, "nothing may follow the final response")
            switch event {
            case .progress(let received, let expected):
                progress.append(received)
                #expect(expected == Int64(jpeg.count))
            case .preview(let image): previews.append(image)
            case .finished(let response): final = response
            }
        }

        // Then there were at least two previews of the final size, progress
        // grew to the full length, and the final image is the full decode
        #expect(previews.count >= 2)
        #expect(previews.allSatisfy { $0.isPreview && $0.size == full.size })
        #expect(progress == progress.sorted())
        #expect(progress.last == Int64(jpeg.count))
        let image = try #require(final?.image)
        #expect(!image.isPreview)
        #expect(image.hasSamePixels(as: full))
        // Later previews are closer to the final image than the first one.
        let first = try #require(previews.first?.maximumChannelDifference(from: full))
        let last = try #require(previews.last?.maximumChannelDifference(from: full))
        #expect(last <= first)
        // Previews are never cached.
        #expect(await harness.memory.image(forKey: url.absoluteString)?.isPreview == false)
    }

    @Test("images(_:) yields previews then ends after the final image")
    func imageSequence() async throws {
        let harness = try PipelineHarness(progressiveCoders: true)
        let jpeg = try fixture("jpeg", "large-progressive.jpg")
        let url = Self.trickled(harness, "/s.jpg", jpeg)
        var images: [Image] = []
        for try await image in harness.loader.images(url, options: .progressiveLoad) {
            images.append(image)
        }
        #expect(images.count >= 2)
        #expect(images.dropLast().allSatisfy { $0.isPreview })
        #expect(images.last?.isPreview == false)
        // Without .progressiveLoad only the final image comes.
        await harness.memory.removeAll()
        var plain: [Image] = []
        for try await image in harness.loader.images(url, options: .fromLoaderOnly) { plain.append(image) }
        #expect(plain.count == 1)
        #expect(plain[0].hasSamePixels(as: try #require(images.last)))
    }

    @Test("a late subscriber gets previews from the shared transfer")
    func lateSubscriber() async throws {
        let harness = try PipelineHarness(progressiveCoders: true)
        let jpeg = try fixture("jpeg", "large-progressive.jpg")
        let url = Self.trickled(harness, "/late.jpg", jpeg, piece: 512, every: .milliseconds(15))
        let loader = harness.loader

        let firstPreview = AsyncStream<Void>.makeStream()
        let early = Task { () -> Int in
            var count = 0
            for try await image in loader.images(url, options: .progressiveLoad) where image.isPreview {
                count += 1
                if count == 1 { firstPreview.continuation.yield() }
            }
            return count
        }
        var waiter = firstPreview.stream.makeAsyncIterator()
        _ = await waiter.next()
        var latePreviews = 0
        var lateFinal: Image?
        for try await image in loader.images(url, options: .progressiveLoad) {
            if image.isPreview { latePreviews += 1 } else { lateFinal = image }
        }
        #expect(try await early.value >= 1)
        #expect(latePreviews >= 1)
        #expect(try #require(lateFinal).hasSamePixels(as: try ImageCoderRegistry.allFormats.decode(jpeg)))
        #expect(harness.requests("/late.jpg") == 1)
    }

    @Test("breaking out of the loop after the first preview cancels the download")
    func breakCancels() async throws {
        let harness = try PipelineHarness(progressiveCoders: true)
        let jpeg = try fixture("jpeg", "large-progressive.jpg")
        let url = Self.trickled(harness, "/b.jpg", jpeg, piece: 256, every: .milliseconds(20))
        for try await image in harness.loader.images(url, options: .progressiveLoad) {
            #expect(image.isPreview)
            break
        }
        let left = await pipelineEventually { harness.server.statistics("/b.jpg").disconnects.count == 1 }
        #expect(left)
        #expect(harness.server.statistics("/b.jpg").bodyBytesSent < jpeg.count)
        #expect(await harness.memory.image(forKey: url.absoluteString) == nil)
    }
}
