import Foundation
import Logging

/// The last stage of a load: what it produced goes to the tiers the
/// request names, as the response's HTTP storage allows. Memory at once;
/// disk and the shared tier through ``ImageCache``'s writes (awaited with
/// `.waitStoreCache`, else in the background and counted when they fail).
struct StoreStage: Sendable {
    let coders: ImageCoderRegistry
    let limiter: ConcurrencyLimiter
    let telemetry: LoaderTelemetry
    /// The quality transformed JPEGs are written at.
    let transformedImageQuality: Double

    /// Stores a load's images and bytes.
    ///
    /// - Parameters:
    ///   - original: The decoded original, kept in memory apart from the
    ///     final image when a transformer ran.
    ///   - image: The final image.
    ///   - data: The original's encoded bytes.
    ///   - source: Where `data` came from: only bytes from the network
    ///     (`.none`) are written to disk; a cache hit is there already.
    ///   - sharedWritten: A fleet lease holder has put the bytes in the
    ///     shared tier already.
    /// - Returns: The error of an awaited disk write that failed: the image
    ///   is good, only its copy is missing, so the load succeeds and says so.
    /// - Throws: `CancellationError` only.
    func store(
        _ request: ImageLoadRequest, original: Image?, image: Image?, data: Data, storage: ResponseStorage,
        source: ImageCacheType, sharedWritten: Bool, logger: Logger
    ) async throws -> ImageError? {
        guard storage.isStorable else { return nil }
        let cache = request.cache
        let keys = request.keys
        if let original, request.transformer != nil, request.originalStoreCacheType.includesMemory {
            await cache.memory.setImage(original, forKey: keys.originalImageKey, http: storage.record)
        }
        if let image { await remember(image, for: request, record: storage.record) }

        var writes: [ImageCache.DiskWrite] = []
        if source == .none, request.originalStoreCacheType.includesDisk {
            let stored = request.context.cacheSerializer.map { $0.cacheData(for: original, originalData: data, url: request.url) } ?? data
            if let stored, let write = cache.dataWrite(
                stored, extendedData: storage.extendedData, forKey: keys.dataKey, toShared: !sharedWritten
            ) {
                writes.append(write)
            }
        }
        // A transformed animation is not written: the encoders write still
        // images, and a disk hit re-decodes and transforms the original.
        if let image, let original, request.transformer != nil, image.animation == nil, request.storeCacheType.includesDisk {
            // JPEG stays JPEG when there is no alpha to lose; everything else is PNG.
            let format: ImageFormat = original.format == .jpeg && !image.pixelFormat.hasAlpha ? .jpeg : .png
            if let write = cache.imageWrite(
                image, as: format, quality: transformedImageQuality, forKey: keys.resultKey,
                coders: coders, limiter: limiter, encodeTimer: telemetry.encodeTimer
            ) {
                writes.append(write)
            }
        }
        do {
            try await telemetry.withChildSpan("image.store") {
                try await cache.writeToDisk(writes, waits: request.options.contains(.waitStoreCache), logger: logger, id: request.logID)
            }
            return nil
        } catch let error as CancellationError {
            throw error
        } catch {
            return error as? ImageError ?? .diskIO(path: keys.dataKey, errno: 0, message: String(describing: error))
        }
    }

    /// The final image in memory under the result key, when the request stores there.
    func remember(_ image: Image, for request: ImageLoadRequest, record: HTTPCacheRecord?) async {
        guard request.storeCacheType.includesMemory else { return }
        await request.cache.memory.setImage(image, forKey: request.keys.resultKey, http: record)
    }

    /// After a `304 Not Modified`: the refreshed metadata goes to the disk
    /// and shared entries of the load and to its memory entries, keeping
    /// their bytes and images.
    func storeRefreshed(_ metadata: HTTPCacheMetadata, for request: ImageLoadRequest, policy: HTTPCachePolicy) async {
        let cache = request.cache
        let keys = request.keys
        if let encoded = metadata.encoded {
            if let disk = cache.disk { _ = try? await disk.setExtendedData(encoded, forKey: keys.dataKey) }
            if let shared = cache.sharedTier { _ = try? await shared.setExtendedData(encoded, forKey: keys.dataKey) }
        }
        let record = policy.record(metadata)
        await cache.memory.setHTTPRecord(record, forKey: keys.resultKey)
        if keys.originalImageKey != keys.resultKey {
            await cache.memory.setHTTPRecord(record, forKey: keys.originalImageKey)
        }
    }
}
