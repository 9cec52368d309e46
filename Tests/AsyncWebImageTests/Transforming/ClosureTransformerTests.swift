import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Closure", .timeLimit(.minutes(1)))
struct ClosureTransformerTests {
    @Test("runs the closure under the given key, in pipelines too")
    func closure() throws {
        // Given a closure that inverts gray pixels
        let invert = ImageTransformers.Closure.custom(key: "invert(v=1)") { image in
            try Image(width: image.width, height: image.height, pixelFormat: .gray8, pixels: image.pixels.map { 255 - $0 })
        }
        let image = try Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [10, 200])
        // When run alone and after a flip, Then the pixels and keys are what the closure and the pipeline say
        #expect(try invert.transform(image).pixels == [245, 55])
        let pipeline = ImageTransformers.Pipeline([ImageTransformers.Flip.flip(horizontal: true), invert])
        #expect(try pipeline.transform(image).pixels == [55, 245])
        #expect(pipeline.key == "flip(h=true,v=false)|invert(v=1)")
    }

    @Test("errors from the closure come out unchanged")
    func errors() {
        let failing = ImageTransformers.Closure(key: "fail") { _ in throw ImageError.transformFailed(key: "fail", reason: "on purpose") }
        #expect(TransformImages.failureKey { try failing.transform(TransformImages.numbered(width: 1, height: 1)) } == "fail")
    }
}
