import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

@Suite("ImageLoader: loading, caching and coalescing", .timeLimit(.minutes(2)))
struct ImageLoaderTests {
    @Test("loads from the network, then memory, then (in a new process) disk; pixels equal a direct decode")
    func cacheTiers() async throws {
        // Given a PNG served by the loopback server
        let harness = try PipelineHarness()
        let png = try fixture("png", "rgba8.png")
        let url = harness.serve("/a.png", png)
        let expected = try ImageCoderRegistry.allFormats.decode(png)

        // When it is loaded three ways
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url)
        let third = try await harness.restartedLoader().response(url)

        // Then the tiers are network, memory, disk, and every image is the decode
        #expect(first.source == .network)
        #expect(second.source == .memory)
        #expect(third.source == .disk)
        for response in [first, second, third] {
            #expect(response.image.hasSamePixels(as: expected))
            #expect(response.url == url)
        }
        #expect(first.data == png)
        #expect(third.data == png)
        #expect(harness.requests("/a.png") == 1)
        #expect(await harness.disk.contains(url.absoluteString))
    }

    @Test("100 concurrent loads of one URL make 1 request and 1 decode")
    func coalescing() async throws {
        // Given a JPEG that takes a while to arrive
        let harness = try PipelineHarness()
        let jpeg = try fixture("jpeg", "large.jpg")
        harness.server.route("/slow.jpg", LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: jpeg,
            trickle: .init(bytesPerPiece: 4096, interval: .milliseconds(20))))
        let url = harness.server.url("/slow.jpg")

        // When 100 callers ask at once
        let images = try await withThrowingTaskGroup(of: Image.self) { group in
            for _ in 0..<100 {
                group.addTask { try await harness.loader.response(url).image }
            }
            return try await group.reduce(into: [Image]()) { $0.append($1) }
        }

        // Then the server saw one request and the decoder ran once
        #expect(images.count == 100)
        #expect(harness.requests("/slow.jpg") == 1)
        #expect(harness.decodes.count == 1)
        #expect(images.allSatisfy { $0.storage === images[0].storage })
    }

    /// A harness serving the large JPEG fixture slowly at `/big.jpg` (so
    /// concurrent loads join one download), its URL and its full decode.
    static func trickledLargeJPEG() throws -> (PipelineHarness, URL, Image) {
        let harness = try PipelineHarness()
        let jpeg = try fixture("jpeg", "large.jpg")
        harness.server.route("/big.jpg", LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: jpeg,
            trickle: .init(bytesPerPiece: 8192, interval: .milliseconds(20))))
        return (harness, harness.server.url("/big.jpg"), try ImageCoderRegistry.allFormats.decode(jpeg))
    }

    @Test("two thumbnail sizes of one URL share the download and decode twice")
    func thumbnailsShareDownload() async throws {
        let (harness, url, full) = try Self.trickledLargeJPEG()

        async let small = harness.loader.response(url, context: ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 32, height: 32))))
        async let medium = harness.loader.response(url, context: ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 64, height: 64))))
        let (a, b) = try await (small, medium)

        let smallImage = a.image, mediumImage = b.image
        #expect(max(smallImage.width, smallImage.height) == 32)
        #expect(max(mediumImage.width, mediumImage.height) == 64)
        // Aspect preserved within a pixel of rounding.
        #expect(abs(Double(mediumImage.width) / Double(mediumImage.height) - Double(full.width) / Double(full.height)) < 0.05)
        #expect(harness.requests("/big.jpg") == 1)
        #expect(harness.decodes.count == 2)
    }

    @Test("coversThumbnailPixelSize decodes the smallest size covering the box, cached apart from the fit of the same box")
    func coverThumbnail() async throws {
        let (harness, url, full) = try Self.trickledLargeJPEG()
        let box = PixelSize(width: 64, height: 64)

        async let covering = harness.loader.response(url, context: ImageContext(thumbnail: ThumbnailOptions(size: box, contentMode: .cover)))
        async let fitting = harness.loader.response(url, context: ImageContext(thumbnail: ThumbnailOptions(size: box)))
        let (a, b) = try await (covering, fitting)
        let cover = a.image, fit = b.image

        // The cover's short side is the box's, the fit's long side is
        #expect(min(cover.width, cover.height) == 64)
        #expect(max(cover.width, cover.height) > 64)
        #expect(max(fit.width, fit.height) == 64)
        #expect(abs(Double(cover.width) / Double(cover.height) - Double(full.width) / Double(full.height)) < 0.05)
        // Two decodes of one download: the two are cached under different keys
        #expect(harness.requests("/big.jpg") == 1)
        #expect(harness.decodes.count == 2)
    }

    @Test("an error reaches every coalesced caller, and a transient one does not block the URL")
    func errorsReachEveryone() async throws {
        let harness = try PipelineHarness()
        harness.server.route("/down.png", LoopbackServer.Response(status: 503, body: Data("busy".utf8), delayBeforeHead: .milliseconds(200)))
        let url = harness.server.url("/down.png")

        let outcomes = await withTaskGroup(of: ImageError?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do { _ = try await harness.loader.response(url); return nil } catch { return error as? ImageError }
                }
            }
            return await group.reduce(into: [ImageError?]()) { $0.append($1) }
        }
        #expect(outcomes.count == 10)
        #expect(outcomes.allSatisfy { $0 == .httpStatus(503) })
        #expect(harness.requests("/down.png") == 1)
        #expect(!harness.loader.isBlocked(url))

        // The next load starts a new request.
        await #expect(throws: ImageError.httpStatus(503)) { try await harness.loader.response(url) }
        #expect(harness.requests("/down.png") == 2)
    }

    @Test("the memory fast path leaves no work behind")
    func memoryHitsLeaveNothing() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/m.png", try fixture("png", "rgb8.png"))
        _ = try await harness.loader.response(url)
        for _ in 0..<200 {
            #expect(try await harness.loader.response(url).source == .memory)
        }
        #expect(harness.loader.tasks.count == 0)
        #expect(harness.loader.tasks.started == 1)
        // The download's own bookkeeping ends on its task just after the image is delivered.
        #expect(await pipelineEventually { await harness.loader.downloads.transferCount == 0 })
        #expect(harness.requests("/m.png") == 1)
    }

    @Test("a load cancelled right after it starts sends no request")
    func cancelBeforeStart() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/never.png", try fixture("png", "rgb8.png"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await harness.loader.response(url)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let iteration = Task {
            var iterator = harness.loader.images(url).makeAsyncIterator()
            withUnsafeCurrentTask { $0?.cancel() }
            return try await iterator.next()
        }
        await #expect(throws: CancellationError.self) { try await iteration.value }
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.requests("/never.png") == 0)
        #expect(harness.loader.tasks.started == 0)
    }

    @Test("cancelling one of two callers mid-download lets the other finish; cancelling all closes the connection")
    func cancellation() async throws {
        let harness = try PipelineHarness()
        let jpeg = try fixture("jpeg", "large.jpg")
        harness.server.route("/c.jpg", LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: jpeg,
            trickle: .init(bytesPerPiece: 2048, interval: .milliseconds(20))))
        let url = harness.server.url("/c.jpg")

        // One of two leaves
        let leaving = Task { try await harness.loader.response(url) }
        let staying = Task { try await harness.loader.response(url) }
        // Both have joined the one load (one left alone would cancel it) and bytes flow.
        #expect(await pipelineEventually { harness.loader.tasks.subscriberCounts.all == 2 })
        #expect(await pipelineEventually { harness.server.statistics("/c.jpg").bodyBytesSent > 0 })
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        let image = try await staying.value.image
        #expect(image.hasSamePixels(as: try ImageCoderRegistry.allFormats.decode(jpeg)))
        #expect(harness.requests("/c.jpg") == 1)

        // Everyone leaves a fresh load: the server sees the client go
        await harness.memory.removeAll()
        try await harness.disk.removeAll()
        let before = harness.server.statistics("/c.jpg").disconnects.count
        let all = (0..<3).map { _ in Task { try await harness.loader.response(url, options: .fromLoaderOnly) } }
        #expect(await pipelineEventually { harness.loader.tasks.subscriberCounts.all == 3 })
        // Cancel only once the transfer is under way at the server.
        #expect(await pipelineEventually { harness.server.statistics("/c.jpg").bodyBytesSent > 2048 + jpeg.count })
        let cancelledAt = ContinuousClock.now
        all.forEach { $0.cancel() }
        for task in all { _ = try? await task.value }
        let closed = await pipelineEventually { harness.server.statistics("/c.jpg").disconnects.count > before }
        #expect(closed)
        if let disconnect = harness.server.statistics("/c.jpg").disconnects.last {
            #expect(disconnect - cancelledAt < .seconds(1).scaled)
        }
        #expect(harness.requests("/c.jpg") == 2)
        #expect(await !harness.disk.contains(url.absoluteString))
    }

    @Test("image(url) calls joining a load in flight wait without a channel: one leaving stops nothing, all leaving cancels the transfer")
    func joinersWithoutChannel() async throws {
        let harness = try PipelineHarness()
        let jpeg = try fixture("jpeg", "large.jpg")
        // The server holds each transfer after 2 KB until the test lets it go on.
        let gate = Gate()
        let url = harness.serveHeld("/j.jpg", jpeg, contentType: "image/jpeg", afterBytes: 2048, by: gate)

        let first = Task { try await harness.loader.response(url) }
        #expect(await pipelineEventually { harness.server.statistics("/j.jpg").bodyBytesSent >= 2048 })
        let joiners = (0..<3).map { _ in Task { try await harness.loader.response(url) } }
        #expect(await pipelineEventually { harness.loader.tasks.subscriberCounts == (all: 4, waiters: 3) })
        joiners[0].cancel()
        await #expect(throws: CancellationError.self) { try await joiners[0].value }
        // The caller that started the work leaves too: the others keep it going.
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(harness.loader.tasks.subscriberCounts == (all: 2, waiters: 2))
        gate.open(1)
        let reference = try ImageCoderRegistry.allFormats.decode(jpeg)
        for joiner in joiners.dropFirst() {
            let response = try await joiner.value
            #expect(response.source == .network)
            #expect(response.image.hasSamePixels(as: reference))
        }
        #expect(harness.requests("/j.jpg") == 1)
        #expect(harness.decodes.count == 1)

        // Everyone leaves a fresh load (joiners first): the transfer stops.
        await harness.memory.removeAll()
        try await harness.disk.removeAll()
        let starter = Task { try await harness.loader.response(url) }
        #expect(await pipelineEventually { harness.server.statistics("/j.jpg").bodyBytesSent >= jpeg.count + 2048 })
        let waiting = (0..<2).map { _ in Task { try await harness.loader.response(url) } }
        #expect(await pipelineEventually { harness.loader.tasks.subscriberCounts == (all: 3, waiters: 2) })
        waiting.forEach { $0.cancel() }
        for task in waiting { await #expect(throws: CancellationError.self) { try await task.value } }
        // The work still has its starter.
        #expect(harness.loader.activeLoadCount == 1)
        starter.cancel()
        await #expect(throws: CancellationError.self) { try await starter.value }
        #expect(await pipelineEventually { harness.loader.activeLoadCount == 0 })
        // The transfer ended while the server still held its body: cancelled, not finished.
        #expect(await pipelineEventually { await harness.loader.downloads.transferCount == 0 })
        #expect(harness.server.statistics("/j.jpg").bodyBytesSent < 2 * jpeg.count)
        gate.open(1)
        #expect(harness.requests("/j.jpg") == 2)
        #expect(await !harness.disk.contains(url.absoluteString))
        #expect(harness.decodes.count == 1)
    }
}
