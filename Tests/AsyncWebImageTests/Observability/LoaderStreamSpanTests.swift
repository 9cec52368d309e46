import Foundation
import LoopbackServer
import Testing
import Tracing
@testable import AsyncWebImage

/// The `image.load` span of the streaming calls (`images()` and `events()`),
/// seen by the recording tracer passed in the loader's configuration: the
/// same span tree as `image(url)`, ended when the stream ends, fails, or is
/// cancelled; and a memory hit's span has no children.
@Suite("Observability: spans of streamed loads", .timeLimit(.minutes(1)))
struct LoaderStreamSpanTests {
    /// A harness with progressive decoders whose loader traces into `tracer`.
    private static func harness(_ tracer: RecordingTracer) throws -> PipelineHarness {
        try PipelineHarness(progressiveCoders: true) { $0.tracer = tracer }
    }

    @Test("a progressive load through images(): one image.load span, ended after the final image, with its stages as children")
    func progressiveSpanTree() async throws {
        // Given a progressive JPEG arriving slowly and a traced loader
        let tracer = RecordingTracer()
        let harness = try Self.harness(tracer)
        let jpeg = try fixture("jpeg", "large-progressive.jpg")
        let url = ImageLoaderProgressiveTests.trickled(harness, "/traced.jpg", jpeg)
        // When its images are consumed with previews
        var images: [Image] = []
        for try await image in harness.loader.images(url, options: [.progressiveLoad, .waitStoreCache]) {
            // The load span is still open while images arrive.
            #expect(!tracer.spans.contains { $0.name == "image.load" })
            images.append(image)
        }
        // Then previews came, then the final image
        #expect(images.count >= 2)
        #expect(images.last?.isPreview == false)
        // And exactly one load span ended, a root, with no error or cancellation
        let spans = tracer.spans
        let loads = spans.filter { $0.name == "image.load" }
        #expect(loads.count == 1)
        let load = try #require(loads.first)
        #expect(load.parentID == nil)
        #expect(!load.isError && load.errors.isEmpty && load.events.isEmpty)
        // And the stages are its children in its trace
        for name in ["image.cache_lookup", "image.download", "image.decode", "image.store"] {
            let child = try #require(spans.first { $0.name == name }, "\(name) missing")
            #expect(child.parentID == load.spanID, "\(name)")
            #expect(child.traceID == load.traceID, "\(name)")
        }
        // And the server saw the download span's traceparent
        let download = try #require(spans.first { $0.name == "image.download" })
        #expect(harness.server.statistics("/traced.jpg").requestHeaders.first?["traceparent"] == "00-\(load.traceID)-\(download.spanID)-01")
    }

    @Test("a cancelled images() stream ends its image.load span with cancellation recorded, not as an error")
    func cancelledStream() async throws {
        // Given a download the server holds after its first 2 KiB
        let tracer = RecordingTracer()
        let harness = try Self.harness(tracer)
        let gate = Gate()
        let jpeg = try fixture("jpeg", "large-progressive.jpg")
        let url = harness.serveHeld("/held.jpg", jpeg, contentType: "image/jpeg", afterBytes: 2048, by: gate)
        // When a consumer iterates it and is cancelled while the bytes are held
        let loader = harness.loader
        let consumer = Task {
            var count = 0
            for try await _ in loader.images(url, options: .progressiveLoad) { count += 1 }
            return count
        }
        #expect(await pipelineEventually { harness.requests("/held.jpg") == 1 })
        #expect(!tracer.spans.contains { $0.name == "image.load" }, "the span is open while the load runs")
        consumer.cancel()
        let outcome = await consumer.result
        gate.open(1)
        #expect(throws: CancellationError.self) { try outcome.get() }
        // Then the load span ended once, with a `cancelled` event and no error status
        let loads = tracer.spans.filter { $0.name == "image.load" }
        #expect(loads.count == 1)
        let load = try #require(loads.first)
        #expect(load.events == ["cancelled"])
        #expect(!load.isError)
        #expect(load.errors.isEmpty)
        // And the cancelled download's span, its child, ends too
        #expect(await pipelineEventually { tracer.spans.contains { $0.name == "image.download" } })
        let download = try #require(tracer.spans.first { $0.name == "image.download" })
        #expect(download.parentID == load.spanID)
        #expect(!download.isError)
    }

    @Test("a failed events() stream records the error on its image.load span")
    func failedStream() async throws {
        let tracer = RecordingTracer()
        let harness = try Self.harness(tracer)
        harness.server.route("/missing.jpg", .status(404))
        var events = 0
        await #expect(throws: ImageError.httpStatus(404)) {
            for try await _ in harness.loader.events(harness.server.url("/missing.jpg")) { events += 1 }
        }
        #expect(events == 0)
        let loads = tracer.spans.filter { $0.name == "image.load" }
        #expect(loads.count == 1)
        #expect(loads.first?.isError == true)
        #expect(loads.first?.errors.count == 1)
        #expect(loads.first?.events.isEmpty == true)
    }

    @Test("leaving the loop after the final image ends the span without a cancellation")
    func leaveAfterFinal() async throws {
        let tracer = RecordingTracer()
        let harness = try Self.harness(tracer)
        let url = harness.serve("/leave.png", try fixture("png", "rgb8.png"))
        var final: Image?
        for try await event in harness.loader.events(url) {
            if case .finished(let response) = event {
                final = response.image
                break
            }
        }
        #expect(final?.isPreview == false)
        let loads = tracer.spans.filter { $0.name == "image.load" }
        #expect(loads.count == 1)
        #expect(loads.first?.events.isEmpty == true)
        #expect(loads.first?.isError == false)
    }

    @Test("a memory hit, through image(url) and through images(), is one image.load span with no children")
    func memoryHitSpans() async throws {
        // Given an image loaded once (a download with its stage spans)
        let tracer = RecordingTracer()
        let harness = try Self.harness(tracer)
        let url = harness.serve("/hit.png", try fixture("png", "rgb8.png"))
        let first = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(first.source == .network)
        let before = tracer.spans.count
        #expect(before > 1)
        // When it is loaded again from memory, once each way
        let hit = try await harness.loader.response(url)
        var streamed: [Image] = []
        for try await image in harness.loader.images(url) { streamed.append(image) }
        // Then each made exactly one span: a root image.load, no stage under it
        #expect(hit.source == .memory)
        #expect(streamed.count == 1)
        #expect(streamed.first?.hasSamePixels(as: hit.image) == true)
        let new = tracer.spans.dropFirst(before)
        #expect(new.map(\.name) == ["image.load", "image.load"])
        #expect(new.allSatisfy { $0.parentID == nil && $0.events.isEmpty && !$0.isError })
        #expect(harness.requests("/hit.png") == 1)
    }
}
