import Foundation
import Logging
import Testing
@testable import AsyncWebImage

@Suite("TransformStage", .timeLimit(.minutes(1)))
struct TransformStageTests {
    struct Refusal: Error {}

    @Test("a transformer's pixels; its foreign error becomes transformFailed with its key, cancellation stays itself")
    func transform() async throws {
        let fixture = StageFixture()
        let stage = TransformStage(limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry)
        let flipped = try await stage.transform(StageFixture.image, with: ImageTransformers.Flip(horizontal: false, vertical: true), options: [])
        #expect(flipped.pixel(x: 3, y: 0) == [180, 100, 7])
        #expect(flipped.pixel(x: 3, y: 1) == [180, 0, 7])

        let refusing = ImageTransformers.Closure(key: "refuses") { _ in throw Refusal() }
        await #expect(throws: ImageError.transformFailed(key: "refuses", reason: String(describing: Refusal()))) {
            try await stage.transform(StageFixture.image, with: refusing, options: [])
        }
        let cancelling = ImageTransformers.Closure(key: "cancels") { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) {
            try await stage.transform(StageFixture.image, with: cancelling, options: [])
        }
    }
}
