import Foundation

/// A decoded original to the final image with the request's transformer:
/// under the CPU limiter, in an `image.transform` span and timed.
struct TransformStage: Sendable {
    let limiter: ConcurrencyLimiter
    let telemetry: LoaderTelemetry

    /// Transforms a decoded original, as SDWebImage does: a still image
    /// once; an animation with `.transformAnimatedImage` frame by frame (a
    /// derived ``AnimatedImage`` whose frames are transformed as they are
    /// decoded, frame 0 now), and without it its first frame only, giving a
    /// still image.
    func transform(_ image: Image, with transformer: any ImageTransformer, options: ImageOptions) async throws -> Image {
        guard let animation = image.animation else { return try await transform(image, with: transformer) }
        guard options.contains(.transformAnimatedImage) else {
            var still = image
            still.animation = nil
            return try await transform(still, with: transformer)
        }
        let transformed = try animation.applyingToFrames { frame in try Self.apply(transformer, to: frame) }
        var first = try await limiter.withPermit { try transformed.decodeFrame(at: 0) }
        first.animation = transformed
        return first
    }

    /// Runs `transformer` on one image, on the bounded pool, in a span and timed.
    func transform(_ image: Image, with transformer: any ImageTransformer) async throws -> Image {
        try await telemetry.withChildSpan("image.transform") {
            try await telemetry.timed(telemetry.transformTimer) {
                try await limiter.withPermit { try Self.apply(transformer, to: image) }
            }
        }
    }

    /// Runs `transformer`, reporting foreign errors as
    /// ``ImageError/transformFailed(key:reason:)``; cancellation (built-in
    /// transformers check for it) stays `CancellationError`.
    static func apply(_ transformer: any ImageTransformer, to image: Image) throws -> Image {
        do {
            return try transformer.transform(image)
        } catch let error as ImageError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw ImageError.transformFailed(key: transformer.key, reason: String(describing: error))
        }
    }
}
