import Foundation
import Logging

/// Encoded bytes to pixels with the loader's coders: off every actor,
/// under the CPU limiter, in an `image.decode` span and timed. The loader
/// owns this stage and the coders; the cache only keeps bytes and images.
struct DecodeStage: Sendable {
    let coders: ImageCoderRegistry
    let limiter: ConcurrencyLimiter
    let telemetry: LoaderTelemetry

    /// `data` decoded with `options`.
    func decode(_ data: Data, options: ImageDecodingOptions) async throws -> Image {
        try await telemetry.withChildSpan("image.decode") {
            try await telemetry.timedDecode {
                try await coders.decode(data, options: options, limiter: limiter)
            }
        }
    }

    /// The entry under `key` in `cache` (disk, else the shared tier), read
    /// and decoded; a damaged entry is removed and is a miss
    /// (``ImageCache/readDecoded(forKey:includeExtendedData:readErrorsAreMisses:logger:decode:)``).
    func decodeStored(
        forKey key: String, in cache: ImageCache, options: ImageDecodingOptions, readErrorsAreMisses: Bool = false, logger: Logger? = nil
    ) async throws -> (image: Image, data: Data)? {
        let entry = try await cache.readDecoded(forKey: key, readErrorsAreMisses: readErrorsAreMisses, logger: logger) {
            try await decode($0, options: options)
        }
        return entry.map { ($0.image, $0.data) }
    }
}
