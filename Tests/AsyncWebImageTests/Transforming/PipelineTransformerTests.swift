import Testing
@testable import AsyncWebImage

@Suite("ImageTransformers.Pipeline", .timeLimit(.minutes(1)))
struct PipelineTransformerTests {
    @Test("applies the transformers in order")
    func order() throws {
        // Given a 6×4 image
        let image = TransformImages.numbered(width: 6, height: 4)
        // When cropped then rotated, Then the result equals doing it by hand; the other order differs
        let pipeline = ImageTransformers.Pipeline.pipeline([.crop(x: 0, y: 0, width: 4, height: 2), .rotate(degrees: 90)])
        let byHand = try ImageTransformers.Rotate(degrees: 90).transform(ImageTransformers.Crop.crop(x: 0, y: 0, width: 4, height: 2).transform(image))
        #expect(try pipeline.transform(image).hasSamePixels(as: byHand))
        let reversed = ImageTransformers.Pipeline([ImageTransformers.Rotate(degrees: 90), ImageTransformers.Crop.crop(x: 0, y: 0, width: 4, height: 2)])
        #expect(try !reversed.transform(image).hasSamePixels(as: byHand))
    }

    @Test("key joins the keys; nested pipelines and then(_:) flatten")
    func keys() {
        let pipeline = ImageTransformers.Resize.resize(width: 8, height: 8).then(.pipeline([.blur(radius: 1), .grayscale()]))
        #expect(pipeline.transformers.count == 3)
        #expect(pipeline.key == "resize(w=8,h=8,mode=fit,upscale=false,filter=lanczos3)|blur(r=1.0)|grayscale(luma=rec709)")
        #expect(ImageTransformers.Pipeline([]).key == "")
        // A one-step pipeline caches like the step alone
        #expect(ImageTransformers.Pipeline([ImageTransformers.Flip.flip(horizontal: true)]).key == ImageTransformers.Flip.flip(horizontal: true).key)
    }

    @Test("an empty pipeline returns the image; a failing step's error comes out")
    func emptyAndFailing() throws {
        let image = TransformImages.numbered(width: 3, height: 3)
        #expect(try ImageTransformers.Pipeline([]).transform(image).storage === image.storage)
        let failing = ImageTransformers.Pipeline([ImageTransformers.Flip.flip(vertical: true), ImageTransformers.Resize.resize(width: 0, height: 5)])
        #expect(TransformImages.failureKey { try failing.transform(image) } == "resize(w=0,h=5,mode=fit,upscale=false,filter=lanczos3)")
    }

    @Test("stops between steps when the task is cancelled")
    func cancellation() async throws {
        let image = TransformImages.numbered(width: 3, height: 3)
        let pipeline = ImageTransformers.Pipeline([ImageTransformers.Flip.flip(vertical: true), ImageTransformers.Flip.flip(horizontal: true)])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try pipeline.transform(image)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("existentials take the static factories")
    func factories() throws {
        let all: [any ImageTransformer] = [
            .resize(width: 4, height: 4, mode: .fill), .crop(x: 0, y: 0, width: 2, height: 2), .flip(horizontal: true),
            .rotate(degrees: 45), .roundCorners(radius: 1), .tint(.white), .blur(radius: 1), .grayscale(),
        ]
        let image = TransformImages.numbered(width: 5, height: 5)
        let out = try ImageTransformers.Pipeline(all).transform(image)
        #expect(out.pixelFormat == .grayAlpha8 && out.size == PixelSize(width: 3, height: 3))
        #expect(Set(all.map(\.key)).count == all.count)
    }
}
