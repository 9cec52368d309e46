public import Foundation

extension ImageLoader {
    /// Applies `transformer` to an image the application holds (one the
    /// loader gave it, say), as the loader applies a context's transformer:
    /// with a permit of the loader's CPU limiter, timed in
    /// `awi_transform_duration_seconds` and traced as an `image.transform`
    /// span (a child of the current span).
    ///
    /// For an application that processes what it loaded itself — a
    /// thumbnail server cropping by request parameters — so its work counts
    /// in the loader's metrics and is bounded by the same limiter.
    ///
    /// - Throws: ``ImageError/transformFailed(key:reason:)`` for a foreign
    ///   error of the transformer; `CancellationError`.
    public func transform(_ image: Image, with transformer: any ImageTransformer) async throws -> Image {
        try await transformStage.transform(image, with: transformer)
    }

    /// Encodes `image` with the loader's coders, with a permit of its CPU
    /// limiter, timed in `awi_encode_duration_seconds` and traced as an
    /// `image.encode` span.
    ///
    /// - Parameters:
    ///   - image: The image to encode.
    ///   - format: The format to write, by the loader's coders.
    ///   - quality: 0...1, for the lossy formats.
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` and the encoders' other errors.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double) async throws -> Data {
        let coders = configuration.coders
        return try await encode { try coders.encode(image, as: format, quality: quality) }
    }

    /// Runs an encode of the application's own (an animation's frames, say)
    /// as ``encode(_:as:quality:)`` runs the loader's: with a CPU permit,
    /// timed and traced.
    public func encode(_ work: () throws -> Data) async throws -> Data {
        try await telemetry.withChildSpan("image.encode") {
            try await telemetry.timed(telemetry.encodeTimer) {
                try await configuration.cpuLimiter.withPermit { try work() }
            }
        }
    }
}
