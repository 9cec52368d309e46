import Foundation
import Metrics
import Testing
import Tracing
@testable import AsyncWebImage

/// ``ImageLoader/transform(_:with:)`` and ``ImageLoader/encode(_:as:quality:)``:
/// an application's own processing of what it loaded counts in the loader's
/// timers and spans (a thumbnail server's resizes and encodes), and decodes
/// count their pixels. Against the real loopback server, sinks passed in.
@Suite("Observability: an application's transforms and encodes through the loader", .timeLimit(.minutes(1)))
struct LoaderApplicationWorkTests {
    @Test("a load, a transform and two encodes under a request span: pixels, timers and child spans")
    func transformAndEncode() async throws {
        // Given a loader with recording sinks and an image it loaded
        let observed = try LoaderObservabilityTests.Observed(tracing: true)
        let url = observed.harness.serve("/w.png", try fixture("png", "rgb8.png"))
        let loader = observed.harness.loader
        try await observed.tracer.withSpan("request") { _ in
            let image = try await loader.response(url).image
            #expect(observed.metrics.counter("awi_decoded_pixels_total") == Int64(image.width * image.height))

            // When the application resizes it and encodes it twice, once its own way
            let small = try await loader.transform(image, with: ImageTransformers.Resize(size: PixelSize(width: 4, height: 4), mode: .stretch))
            let png = try await loader.encode(small, as: .png, quality: 1)
            let custom = try await loader.encode { Data([1, 2, 3]) }

            // Then the work is what was asked
            #expect(small.width == 4 && small.height == 4)
            #expect(ImageFormat.detect(png) == .png)
            #expect(custom == Data([1, 2, 3]))
        }
        // And the loader's timers counted it
        #expect(observed.metrics.recorded("awi_transform_duration_seconds").count == 1)
        #expect(observed.metrics.recorded("awi_encode_duration_seconds").count == 2)
        // And its spans are children of the application's request span
        let spans = observed.tracer.spans
        let request = try #require(spans.first { $0.name == "request" })
        let transforms = spans.filter { $0.name == "image.transform" }
        let encodes = spans.filter { $0.name == "image.encode" }
        #expect(transforms.count == 1 && encodes.count == 2)
        #expect((transforms + encodes).allSatisfy { $0.parentID == request.spanID && $0.traceID == request.traceID })
    }

    @Test("a foreign error of the transformer is a transformFailed, recorded on its span")
    func transformFailure() async throws {
        struct Refusing: ImageTransformer {
            struct Refusal: Error {}
            var key: String { "refusing" }
            func transform(_ image: Image) throws -> Image { throw Refusal() }
        }
        let observed = try LoaderObservabilityTests.Observed(tracing: true)
        let url = observed.harness.serve("/r.png", try fixture("png", "rgb8.png"))
        let loader = observed.harness.loader
        let image = try await loader.response(url).image
        await observed.tracer.withSpan("request") { _ in
            let thrown = await #expect(throws: ImageError.self) { try await loader.transform(image, with: Refusing()) }
            guard case .transformFailed(let key, _) = thrown else {
                Issue.record("\(String(describing: thrown)) is not transformFailed")
                return
            }
            #expect(key == "refusing")
        }
        #expect(observed.tracer.spans.first { $0.name == "image.transform" }?.isError == true)
    }
}
