import Foundation

extension ImageCoderRegistry {
    /// Decodes `data` on the cooperative pool, never on the caller's actor,
    /// under `limiter`: the one way the loader and the cache run a decode.
    ///
    /// The header decides the limiter's lane before any pixel work: a huge
    /// image waits for a heavy permit, not in front of small ones, and what
    /// its header or structure alone breaks is refused before it waits. A
    /// ``SelfSchedulingImageDecoding`` decoder takes no permit: it runs under
    /// its own bound, away from the cooperative pool.
    @concurrent
    func decode(_ data: Data, options: ImageDecodingOptions, limiter: ConcurrencyLimiter) async throws -> Image {
        let decoder = decoder(for: data)
        if let scheduling = decoder as? any SelfSchedulingImageDecoding {
            return try await scheduling.decodeScheduled(data, options: options)
        }
        let declared = decoder?.declaredSize(of: data)
        let heavy = limiter.isHeavy(declared)
        if heavy, let decoder, let declared {
            try options.checkPixelLimit(declared)
            try decoder.checkStructureLimits(of: data, options: options)
        }
        return try await limiter.withPermit(heavy: heavy) { try decodeNow(data, options: options, limiter: limiter) }
    }

    /// Encodes `image` on the cooperative pool under `limiter`.
    ///
    /// - Parameter format: The format to write; `nil` for the image's source
    ///   format when an encoder writes it, PNG otherwise.
    @concurrent
    func encode(_ image: Image, as format: ImageFormat?, quality: Double, limiter: ConcurrencyLimiter) async throws -> Data {
        let format = format ?? (encoder(for: image.format) != nil ? image.format : .png)
        return try await limiter.withPermit { try encode(image, as: format, quality: quality) }
    }
}
