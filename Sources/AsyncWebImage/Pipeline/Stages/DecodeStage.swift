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
    /// and decoded: the one implementation of "read → decode → remove a
    /// damaged entry". The loader, which owns the coders, decides what a
    /// decode failure means for the stored bytes; the cache only stores them.
    ///
    /// - Returns: The image, its bytes and whether the shared tier held them;
    ///   `nil` on a miss, an unreadable entry (`readErrorsAreMisses`), or a
    ///   damaged entry — one whose error ``ImageError/condemnsCachedData``
    ///   (a coder that reads its format failed on its bytes), removed from
    ///   both tiers so that the next load fetches it anew instead of failing
    ///   on it again.
    /// - Throws: `CancellationError`; decode errors that do not condemn the
    ///   bytes (a limit: the entry is kept for a load that allows more; a
    ///   format no coder of this loader reads: kept for the loaders that do);
    ///   read errors unless `readErrorsAreMisses`.
    func decodeStored(
        forKey key: String, in cache: ImageCache, options: ImageDecodingOptions, readErrorsAreMisses: Bool = false, logger: Logger? = nil
    ) async throws -> (image: Image, data: Data, fromSharedTier: Bool)? {
        guard let entry = try await cache.readEntry(forKey: key, readErrorsAreMisses: readErrorsAreMisses) else { return nil }
        try Task.checkCancellation()
        do {
            return (try await decode(entry.data, options: options), entry.data, entry.fromSharedTier)
        } catch let error as ImageError where error.condemnsCachedData {
            logger?.debug("damaged cache entry removed", metadata: [
                "awi.entry": .string(String(SHA256.hexDigest(key).prefix(12))), "awi.error": .string(error.caseName),
            ])
            try? await cache.disk?.removeData(forKey: key)
            try? await cache.sharedTier?.removeData(forKey: key)
            return nil
        }
    }
}
