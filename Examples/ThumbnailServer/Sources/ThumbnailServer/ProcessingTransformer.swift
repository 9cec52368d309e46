import AsyncWebImage

/// An imgproxy-style request's processing (``ImageProcessor``) as a
/// transformer, so the loader runs it (``ImageLoader/transform(_:with:)``):
/// with a CPU permit, timed in `awi_transform_duration_seconds` and traced.
struct ProcessingTransformer: ImageTransformer {
    let request: ProcessingRequest

    var key: String { request.transformKey }

    func transform(_ image: Image) throws -> Image {
        try ImageProcessor.process(image, request)
    }
}
