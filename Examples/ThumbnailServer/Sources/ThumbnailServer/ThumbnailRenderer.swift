import AsyncWebImage
import AsyncWebImageRedis
import Foundation
import HTTPTypes

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
    let cpuLimiter: ConcurrencyLimiter
    /// Encoded responses already made.
    let results: ResultCache
    /// The fleet's Redis, when `--redis` is given (its nodes or cluster, this
    /// tenant's prefix, database and credentials: ``RedisOptions``).
    let redis: RedisStore?
    /// Where a load without a transformer stores the downloaded original.
    private let directStoreCacheType: ImageCacheType

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
        transfer.defaultHeaders[.userAgent] = "AsyncWebImage-ThumbnailServer/\(CurlDataLoader.version)"

        let memory = MemoryCache(configuration: .init(costLimit: options.memoryCacheMiB * 1024 * 1024))
        // `--cache-dir DIR`: originals in DIR/originals, encoded responses
        // in DIR/results (two stores, so neither's eviction starves the other).
        let directory = options.cacheDirectory.map { URL(fileURLWithPath: $0) }
        let disk = directory.map { DiskStore(directory: $0.appendingPathComponent("originals")) }
        // The fleet's tier: originals (with one origin fetch per image across
        // the fleet, by leases) and encoded responses under their own keys.
        let redis = options.redis.configuration().map(RedisStore.init(configuration:))
        // One CPU limiter for the loader and the cache: one decode, resize or
        // encode per core the process may use (its affinity mask and CPU
        // quota, not the host's core count: under `taskset -c 0` two decodes
        // on one core would hold two decodes' buffers for no more
        // throughput); the heavy decodes' threads run at `--heavy-decode-nice`.
        let cpuLimiter = ConcurrencyLimiter(heavyThreadNice: options.heavyDecodeNice)
        let cache = ImageCache(memory: memory, disk: disk, sharedTier: redis, decodeLimiter: cpuLimiter)
        results = ResultCache(
            // --cache-mib 0 keeps its promise that every request does the
            // whole work (the benchmarks rely on it): no result memory either.
            memoryBytes: options.memoryCacheMiB == 0 ? 0 : options.resultCacheMiB * 1024 * 1024,
            disk: directory.map { DiskStore(directory: $0.appendingPathComponent("results")) },
            shared: redis,
            writes: ResultWriteQueue(maxInFlight: options.resultWrites, maxQueued: options.resultWriteQueue)
        )
        self.redis = redis

        var configuration = ImageLoader.Configuration(cache: cache)
        // One cache for every client: a `private` response is not stored,
        // `s-maxage` wins over `max-age` (RFC 9111's shared cache).
        configuration.httpCacheMode = .shared
        // Every decode counted (`thumbnail_decodes_total`).
        configuration.coders = CountingDecoder.wrapping(.builtIn)
        configuration.dataLoader = CurlDataLoader(configuration: transfer)
        configuration.cpuLimiter = cpuLimiter
        configuration.maxPixelCount = options.maxInputPixels
        configuration.maxAnimationPixelCount = options.maxAnimationPixels
        // Under load most requests wait for a CPU permit, each holding its
        // upstream body: bound those bodies in bytes, not by requests.
        let budgetMiB = options.bodyBudgetMiB ?? 2 * cpuLimiter.limit
        configuration.bodyBudgetBytes = budgetMiB == 0 ? nil : budgetMiB * 1024 * 1024
        // Encoders write no EXIF here: turn the pixels upright before resizing.
        configuration.appliesOrientation = true
        // A proxy reports the upstream's real failure on every request rather
        // than a remembered "blocked URL"; its clients decide about retrying.
        configuration.blocksFailedURLs = false
        let memoryOn = options.memoryCacheMiB > 0
        // Finished thumbnails in memory (for imgproxy-style crops, the full
        // decode they are cut from); originals (encoded) on disk and in the
        // fleet's Redis when given.
        configuration.defaultContext.storeCacheType = memoryOn ? .memory : ImageCacheType.none
        // The "disk" tiers are the local disk and the fleet's Redis: storing
        // originals there is also what lets the fleet fetch each one once.
        let lowerTiers = disk != nil || redis != nil
        configuration.defaultContext.originalStoreCacheType = lowerTiers ? .disk : ImageCacheType.none
        configuration.defaultContext.queryCacheType = switch (memoryOn, lowerTiers) {
        case (true, true): .all
        case (true, false): .memory
        case (false, true): .disk
        case (false, false): ImageCacheType.none
        }
        // A load without a transformer (the imgproxy-style path) stores its
        // original by its store type, not the original store type: say the
        // lower tiers too, or it would neither reach the fleet nor take a lease.
        directStoreCacheType = switch (memoryOn, lowerTiers) {
        case (true, true): .all
        case (true, false): .memory
        case (false, true): .disk
        case (false, false): ImageCacheType.none
        }
        loader = ImageLoader(configuration: configuration)
        allowedHosts = options.allowedHosts
        coders = configuration.coders
        self.cpuLimiter = cpuLimiter
    }

    /// The thumbnail for a query-form `request`: from the encoded-result
    /// cache when it was made before (no decode, no encode), else made and stored.
    ///
    /// - Throws: ``ThumbnailError/forbidden(_:)`` for a host off the
    ///   allow-list; ``ImageError`` from the loader or the encoder;
    ///   `CancellationError` when the client went away.
    func render(_ request: ThumbnailRequest, watch: ClientDisconnectWatch? = nil) async throws -> Thumbnail {
        try checkHost(of: request.url)
        let key = "query1|" + request.canonicalParameters
        if let (entry, tier) = await results.entry(forKey: key) {
            return Thumbnail(body: entry.body, format: entry.format, entityTag: entry.entityTag, cacheStatus: "hit-result-\(tier.rawValue)")
        }
        return try await Self.whileConnected(watch) { try await self.make(request, key: key) }
    }

    /// Makes and stores a query-form thumbnail (the result cache missed).
    private func make(_ request: ThumbnailRequest, key: String) async throws -> Thumbnail {
        let (image, cacheType) = try await Self.imageAndSource(of: load(request))
        let coders = coders
        let quality = Double(request.quality) / 100
        let body = try await cpuLimiter.withPermit { try coders.encode(image, as: request.format, quality: quality) }
        let entry = results.store(body, format: request.format, forKey: key)
        return Thumbnail(
            body: body, format: request.format, entityTag: entry.entityTag,
            cacheStatus: cacheType == .none ? "miss" : "hit-\(cacheType)"
        )
    }

    /// The image of a loader's `response` and where it came from, and not
    /// the response itself: it also holds the upstream body (16 MB for the
    /// largest photo of the bench's corpus), which, kept in the caller's
    /// frame, stayed alive while the encode waited for a CPU permit behind
    /// other requests' decodes.
    private static func imageAndSource(of response: ImageResponse) throws -> (Image, ImageCacheType) {
        guard let image = response.image else { throw ThumbnailError.internalError("the loader returned no image") }
        return (image, response.cacheType)
    }

    /// The image for an imgproxy-style `request` in `format` (`nil`: JPEG,
    /// or PNG when the result has alpha), from the encoded-result cache or made.
    ///
    /// - Throws: as ``render(_:)``.
    /// - Parameter animatesAsWebP: Whether an animated source (GIF,
    ///   animated WebP, APNG) is answered as an animated WebP, every frame
    ///   processed alike; otherwise its first frame is.
    func render(
        _ request: ProcessingRequest, format: ImageFormat?, animatesAsWebP: Bool = false, watch: ClientDisconnectWatch? = nil
    ) async throws -> Thumbnail {
        try checkHost(of: request.url)
        let quality = request.quality.map(String.init) ?? "default"
        let key = "imgproxy1|\(request.url.absoluteString)|\(request.transformKey)|\(format?.rawValue ?? "jpeg-or-png")|\(quality)"
            + (animatesAsWebP ? "|anim-webp" : "")
        if let (entry, tier) = await results.entry(forKey: key) {
            return Thumbnail(body: entry.body, format: entry.format, entityTag: entry.entityTag, cacheStatus: "hit-result-\(tier.rawValue)")
        }
        return try await Self.whileConnected(watch) {
            try await self.make(request, format: format, animatesAsWebP: animatesAsWebP, key: key)
        }
    }

    /// Runs `work` in a task cancelled when the client leaves (`watch`):
    /// only the work of a miss, so a result hit spawns no task.
    private static func whileConnected<Value: Sendable>(
        _ watch: ClientDisconnectWatch?, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        guard let watch else { return try await work() }
        let result: Result<Value, any Error> = await watch.run {
            do { return .success(try await work()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Makes and stores an imgproxy-style result (the result cache missed).
    private func make(_ request: ProcessingRequest, format: ImageFormat?, animatesAsWebP: Bool, key: String) async throws -> Thumbnail {
        // A still answer needs the first frame only: then an animation's
        // frames are neither scanned nor held against the animation limit,
        // which bounds the work of an animated answer, not of its poster.
        let (image, cacheType) = try await Self.imageAndSource(
            of: loader.image(
                request.url, options: animatesAsWebP ? [] : .decodeFirstFrameOnly,
                context: Self.decodeContext(for: request, storeCacheType: directStoreCacheType)
            )
        )
        let coders = coders
        let (body, chosen) = try await cpuLimiter.withPermit {
            if animatesAsWebP, let animation = image.animation {
                return (try Self.animatedWebP(animation, request), ImageFormat.webp)
            }
            let processed = try ImageProcessor.process(image, request)
            let chosen = format ?? (processed.pixelFormat.hasAlpha ? .png : .jpeg)
            let quality = Double(request.quality ?? Self.defaultQuality(for: chosen)) / 100
            return (try coders.encode(processed, as: chosen, quality: quality), chosen)
        }
        let entry = results.store(body, format: chosen, forKey: key)
        return Thumbnail(
            body: body, format: chosen, entityTag: entry.entityTag,
            cacheStatus: cacheType == .none ? "miss" : "hit-\(cacheType)"
        )
    }

    /// The smallest decode `request` can be made from, as a decoder's own
    /// thumbnail (DCT-scaled for JPEG, shrunk while inflating for PNG): a
    /// fit is the box fitted inside; a fill (fill-down, auto) the box
    /// covered, so the crop is cut from it at scale 1; a force the box
    /// exactly; a side of 0 leaves that side to the aspect ratio. The
    /// processing that follows then only crops, or resamples a little.
    static func decodeContext(for request: ProcessingRequest, storeCacheType: ImageCacheType) -> ImageContext {
        let target = request.targetSize
        guard target.width > 0 || target.height > 0 else { return ImageContext(storeCacheType: storeCacheType) }
        // A side of 0 is unconstrained: a box side no image reaches.
        let unbounded = 1 << 24
        let box = PixelSize(width: target.width > 0 ? target.width : unbounded, height: target.height > 0 ? target.height : unbounded)
        var context = ImageContext(thumbnailPixelSize: box, preserveAspectRatio: true, storeCacheType: storeCacheType)
        guard target.width > 0, target.height > 0 else { return context }
        switch request.resizingType {
        case .fit: break
        // Auto is a fill or a fit by the source's orientation, unknown until
        // decoded: the cover serves both (a fit then resamples it down).
        case .fill, .fillDown, .auto: context.coversThumbnailPixelSize = true
        case .force: context.preserveAspectRatio = false
        }
        return context
    }

    /// Every frame of `animation` processed as `request` says, encoded as
    /// an animated WebP with the source's durations and loop count. Frames
    /// are decoded one at a time through the animation's bounded buffer;
    /// the frame count and canvas were checked against the animation pixel
    /// limit before any frame was decoded. A client that leaves stops it
    /// between two frames (its task is cancelled), so an abandoned request
    /// holds its CPU permit for one frame, not for the whole animation.
    private static func animatedWebP(_ animation: AnimatedImage, _ request: ProcessingRequest) throws -> Data {
        let encoder = AnimatedWebPEncoder(quality: Double(request.quality ?? defaultQuality(for: .webp)) / 100)
        var index = 0
        return try encoder.encodeAnimation(loopCount: animation.loopCount) {
            guard index < animation.frameCount else { return nil }
            try Task.checkCancellation()
            defer { index += 1 }
            let frame = try ImageProcessor.process(animation.frame(at: index), request)
            return (frame, animation.frameDurations[index])
        }
    }

    /// The quality used when a request gives none, per format: imgproxy's
    /// defaults (JPEG 80, WebP 79, AVIF 63); PNG is lossless.
    static func defaultQuality(for format: ImageFormat) -> Int {
        switch format {
        case .webp: 79
        case .avif: 63
        default: 80
        }
    }

    private func checkHost(of url: URL) throws(ThumbnailError) {
        guard let host = url.host, allowedHosts.allows(host) else {
            throw ThumbnailError.forbidden("upstream host \(url.host ?? "") is not allowed")
        }
    }

    /// Loads the resized image: a DCT-scaled decode (`thumbnailPixelSize`)
    /// close to the result, then ``ResizeTransformer`` for the exact size.
    /// The answer is a still: an animation's first frame.
    private func load(_ request: ThumbnailRequest) async throws -> ImageResponse {
        let resize = ResizeTransformer(size: request.size, mode: request.mode)
        switch request.mode {
        case .fit:
            // The decoder's fit-inside thumbnail is the answer; the resize
            // only pins the rounding of the short side.
            return try await loader.image(request.url, options: .decodeFirstFrameOnly, context: ImageContext(
                transformer: resize, thumbnailPixelSize: request.size, preserveAspectRatio: true))
        case .stretch:
            // The decoder's exact-size thumbnail is the stretched image.
            return try await loader.image(request.url, options: .decodeFirstFrameOnly, context: ImageContext(
                transformer: resize, thumbnailPixelSize: request.size, preserveAspectRatio: false))
        case .fill:
            // The decoder's thumbnail covering the target (one side exact,
            // the other beyond it, whatever the aspect ratio); the resize
            // then only cuts the centre out.
            return try await loader.image(request.url, options: .decodeFirstFrameOnly, context: ImageContext(
                transformer: resize, thumbnailPixelSize: request.size, preserveAspectRatio: true, coversThumbnailPixelSize: true))
        }
    }
}
