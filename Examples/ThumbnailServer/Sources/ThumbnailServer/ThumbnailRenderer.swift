import AsyncWebImage
import Foundation

/// Makes thumbnails with one ``ImageLoader`` shared by every request.
///
/// One loader means one curl multi handle (connections reused across
/// requests), one download per URL however many requests want it at once,
/// one decode per distinct thumbnail, and one bound on CPU work: the loader's
/// `cpuLimiter` admits about one decode, resize or encode per core, so a
/// burst queues instead of starving the event loops. Hummingbird runs handlers
/// as Swift tasks, not on the NIO event loop threads, and the encode here
/// takes a permit of the same limiter.
final class ThumbnailRenderer: Sendable {
    /// The loader: upstream fetches, decoding, resizing and caching.
    let loader: ImageLoader
    private let allowedHosts: HostAllowList
    private let coders: ImageCoderRegistry
    private let cpuLimiter: ConcurrencyLimiter

    /// Creates the loader and its parts from the server's options.
    init(options: ServerOptions) {
        var transfer = CurlDataLoader.Configuration()
        transfer.maxConcurrentDownloads = options.maxConcurrentDownloads
        transfer.timeout = options.timeout
        transfer.transferTimeout = options.transferTimeout
        transfer.maxRedirects = options.maxRedirects
        transfer.maxResponseBytes = options.maxInputBytes
        // SSRF: refuse internal addresses wherever curl connects (after DNS,
        // after each redirect), whatever name the URL used. Loopback only
        // when asked for, for tests and benchmarks.
        transfer.destinationGuard = DestinationGuard(
            refused: options.allowsLoopback ? DestinationGuard.Categories.all.subtracting(.loopback) : .all
        )
        // Upstreams see who is asking (cookies stay off: the loader sends
        // none unless a load passes `.handleCookies`).
        transfer.defaultHeaders["User-Agent"] = "AsyncWebImage-ThumbnailServer/\(CurlDataLoader.version)"

        let memory = MemoryCache(configuration: .init(costLimit: options.memoryCacheMiB * 1024 * 1024))
        let disk = options.cacheDirectory.map { DiskStore(directory: URL(fileURLWithPath: $0)) }
        let cache = ImageCache(memory: memory, disk: disk)

        var configuration = ImageLoader.Configuration(cache: cache)
        configuration.dataLoader = CurlDataLoader(configuration: transfer)
        configuration.maxPixelCount = options.maxInputPixels
        // Encoders write no EXIF here: turn the pixels upright before resizing.
        configuration.appliesOrientation = true
        // A proxy reports the upstream's real failure on every request rather
        // than a remembered "blocked URL"; its clients decide about retrying.
        configuration.blocksFailedURLs = false
        let memoryOn = options.memoryCacheMiB > 0
        // Finished thumbnails in memory; originals (encoded) on disk when a
        // directory is given; the decoded full-size original nowhere.
        configuration.defaultContext.storeCacheType = memoryOn ? .memory : ImageCacheType.none
        configuration.defaultContext.originalStoreCacheType = disk != nil ? .disk : ImageCacheType.none
        configuration.defaultContext.queryCacheType = switch (memoryOn, disk != nil) {
        case (true, true): .all
        case (true, false): .memory
        case (false, true): .disk
        case (false, false): ImageCacheType.none
        }
        loader = ImageLoader(configuration: configuration)
        allowedHosts = options.allowedHosts
        coders = configuration.coders
        cpuLimiter = configuration.cpuLimiter
    }

    /// The thumbnail for `request`.
    ///
    /// - Throws: ``ThumbnailError/forbidden(_:)`` for a host off the
    ///   allow-list; ``ImageError`` from the loader or the encoder;
    ///   `CancellationError` when the client went away.
    func render(_ request: ThumbnailRequest) async throws -> Thumbnail {
        guard let host = request.url.host, allowedHosts.allows(host) else {
            throw ThumbnailError.forbidden("upstream host \(request.url.host ?? "") is not allowed")
        }
        let response = try await load(request)
        guard let image = response.image else { throw ThumbnailError.internalError("the loader returned no image") }
        let coders = coders
        let quality = Double(request.quality) / 100
        let body = try await cpuLimiter.withPermit { try coders.encode(image, as: request.format, quality: quality) }
        return Thumbnail(
            body: body, format: request.format, size: image.size,
            entityTag: EntityTag(parameters: request.canonicalParameters, body: body),
            cacheType: response.cacheType
        )
    }

    /// Loads the resized image: a DCT-scaled decode (`thumbnailPixelSize`)
    /// close to the result, then ``ResizeTransformer`` for the exact size.
    private func load(_ request: ThumbnailRequest) async throws -> ImageResponse {
        let resize = ResizeTransformer(size: request.size, mode: request.mode)
        switch request.mode {
        case .fit:
            // The decoder's fit-inside thumbnail is the answer; the resize
            // only pins the rounding of the short side.
            return try await loader.image(request.url, context: ImageContext(
                transformer: resize, thumbnailPixelSize: request.size, preserveAspectRatio: true))
        case .stretch:
            // The decoder's exact-size thumbnail is the stretched image.
            return try await loader.image(request.url, context: ImageContext(
                transformer: resize, thumbnailPixelSize: request.size, preserveAspectRatio: false))
        case .fill:
            // The decoder fits inside a box, and a box that covers the target
            // for every aspect ratio would be unbounded. A box 3 times the
            // target covers any image whose aspect ratio is within 3× of the
            // target's; for the rest (panoramas) the crop comes out short, and
            // they are decoded again at full size (from the disk cache when
            // there is one, else downloaded again).
            let box = PixelSize(width: request.size.width * 3, height: request.size.height * 3)
            let first = try await loader.image(request.url, context: ImageContext(
                transformer: resize, thumbnailPixelSize: box, preserveAspectRatio: true))
            if first.image?.size == request.size { return first }
            return try await loader.image(request.url, context: ImageContext(transformer: resize))
        }
    }
}
