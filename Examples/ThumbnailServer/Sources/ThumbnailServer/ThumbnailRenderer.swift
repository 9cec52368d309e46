import AsyncWebImage
import AsyncWebImageAllFormats
import AsyncWebImageWebP
import AsyncWebImageRedis
import Foundation
import HTTPTypes

/// Makes thumbnails with one ``ImageLoader`` shared by every request.
///
/// One loader means one curl multi handle (connections reused across
/// requests), one download per URL however many requests want it at once,
/// one decode per distinct thumbnail, and one bound on CPU work: the loader's
/// `cpuLimits` admit about one decode, resize or encode per core, so a
/// burst queues instead of starving the event loops. Hummingbird runs handlers
/// as Swift tasks, not on the NIO event loop threads, and the encode here
/// takes a permit of the same limiter.
final class ThumbnailRenderer: Sendable {
    /// The loader: upstream fetches, decoding, resizing and caching.
    let loader: ImageLoader
    private let allowedHosts: HostAllowList
    /// The loader's CPU limits (one job per core the process may use).
    let cpuLimits: ImageLoader.CPULimits
    /// Encoded responses already made.
    let results: ResultCache
    /// The fleet's Redis, when `--redis` is given (its nodes or cluster, this
    /// tenant's prefix, database and credentials: ``RedisOptions``).
    let redis: RedisStore?
    /// Where a load without a transformer stores the downloaded original.
    private let directStoreCacheType: ImageCacheType
    /// Whether results are kept, and their `Cache-Control`, from the origin's.
    let cachePolicy: ThumbnailCachePolicy
    /// What origins said about caching, for originals served from the loader's cache.
    private let origins = OriginCacheabilityMemo()

    /// Bytes a decoded-image entry of the loader's memory cache costs beyond
    /// its key and pixels: the LRU's node, the image's storage header and
    /// the HTTP record of a small origin head.
    static let memoryEntryOverhead = 1024

    /// Creates the loader and its parts from the server's options.
    ///
    /// - Throws: ``RedisStore/ConfigurationError`` for Redis settings the
    ///   store refuses (``ServerOptions/parse(_:environment:)`` checks them first).
    init(options: ServerOptions) throws(RedisStore.ConfigurationError) {
        var transfer = CurlDataLoader.Configuration()
        transfer.maxConcurrentDownloads = options.maxConcurrentDownloads
        transfer.timeout = options.timeout
        transfer.transferTimeout = options.transferTimeout
        transfer.maxRedirects = options.maxRedirects
        transfer.maxResponseBytes = options.maxInputBytes
        // SSRF: refuse internal addresses wherever curl connects (after DNS,
        // after each redirect), whatever name the URL used. Loopback only
        // when asked for, for tests and benchmarks.
        transfer.destinationGuard = CurlDataLoader.DestinationGuard(
            refused: options.allowsLoopback ? CurlDataLoader.DestinationGuard.Categories.all.subtracting(.loopback) : .all
        )
        // Upstreams see who is asking (cookies stay off: the loader sends
        // none unless a load passes `.handleCookies`).
        transfer.defaultHeaders[.userAgent] = "AsyncWebImage-ThumbnailServer/\(CurlDataLoader.version)"

        // Keys count too: a decoded 1×1 image costs 4 bytes of pixels beside
        // a key of up to --max-url-length bytes (and its HTTP record), so the
        // pixels get three quarters of --cache-mib and the entry count is
        // capped so that keys of the longest URL take at most the last quarter.
        let memoryBytes = options.memoryCacheMiB * 1024 * 1024
        let memory = MemoryCache(configuration: .init(
            costLimit: memoryBytes / 4 * 3,
            countLimit: memoryBytes / 4 / (options.maxURILength + Self.memoryEntryOverhead)
        ))
        // `--cache-dir DIR`: originals in DIR/originals, encoded responses
        // in DIR/results (two stores, so neither's eviction starves the other).
        let directory = options.cacheDirectory.map { URL(fileURLWithPath: $0) }
        let disk = directory.map { DiskStore(directory: $0.appendingPathComponent("originals")) }
        // The fleet's tier: originals (with one origin fetch per image across
        // the fleet, by leases) and encoded responses under their own keys.
        let redis = try options.redis.configuration().map { configuration throws(RedisStore.ConfigurationError) in
            try RedisStore(configuration: configuration)
        }
        // One CPU bound for the loader's work and the server's: one decode,
        // resize or encode per core the process may use (its affinity mask
        // and CPU quota, not the host's core count: under `taskset -c 0` two
        // decodes on one core would hold two decodes' buffers for no more
        // throughput); the heavy decodes' threads run at `--heavy-decode-nice`.
        let cpuLimits = ImageLoader.CPULimits(heavyThreadNice: options.heavyDecodeNice)
        let cache = ImageCache(memory: memory, disk: disk, sharedTier: redis)
        results = ResultCache(
            // --cache-mib 0 keeps its promise that every request does the
            // whole work (the benchmarks rely on it): no result memory either.
            memoryBytes: options.memoryCacheMiB == 0 ? 0 : options.resultCacheMiB * 1024 * 1024,
            memoryEntries: options.resultCacheEntries,
            disk: directory.map { DiskStore(directory: $0.appendingPathComponent("results")) },
            shared: redis,
            writes: ResultWriteQueue(maxInFlight: options.resultWrites, maxQueued: options.resultWriteQueue)
        )
        self.redis = redis

        var configuration = ImageLoader.Configuration(cache: cache)
        // Every format the web serves, and the allocator tuned for a process
        // that decodes all day (the library leaves it alone unless asked).
        configuration.coders = .allFormats
        configuration.allocatorTuning = .default
        // One cache for every client: a `private` response is not stored,
        // `s-maxage` wins over `max-age` (RFC 9111's shared cache).
        configuration.httpCacheMode = .shared
        // Sources whose origins say nothing about freshness are kept for
        // the operator's lifetime, then revalidated; explicit headers win.
        configuration.defaultFreshnessLifetime = .seconds(options.sourceLifetime)
        configuration.dataLoader = CurlDataLoader(configuration: transfer)
        configuration.cpuLimits = cpuLimits
        configuration.decodingLimits.maxPixelCount = options.maxInputPixels
        configuration.decodingLimits.maxAnimationPixelCount = options.maxAnimationPixels
        // Under load most requests wait for a CPU permit, each holding its
        // upstream body: bound those bodies in bytes, not by requests.
        let budgetMiB = options.bodyBudgetMiB ?? 2 * cpuLimits.maxConcurrentWork
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
        cachePolicy = ThumbnailCachePolicy(maxAge: options.maxAge, minMaxAge: options.minMaxAge)
        self.cpuLimits = cpuLimits
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
            return Self.thumbnail(hit: entry, tier: tier)
        }
        return try await Self.whileConnected(watch) { try await self.make(request, key: key) }
    }

    /// Makes and stores a query-form thumbnail (the result cache missed).
    private func make(_ request: ThumbnailRequest, key: String) async throws -> Thumbnail {
        let recorder = OriginHeadRecorder(url: request.url, memo: origins)
        let (image, source, stored) = try await Self.imageAndSource(of: load(request, recorder: recorder))
        // Through the loader: a CPU permit, and the encode in its metrics and spans.
        let body = try await loader.encode(image, as: request.format, quality: Double(request.quality) / 100)
        return finish(body, format: request.format, key: key, url: request.url, recorder: recorder, source: source, stored: stored)
    }

    /// The answer for a result hit: its `Cache-Control` counts down to its expiry.
    private static func thumbnail(hit entry: ResultCache.Entry, tier: ResultCache.Tier) -> Thumbnail {
        Thumbnail(
            body: entry.body, format: entry.format, entityTag: entry.entityTag, cacheStatus: "hit-result-\(tier.rawValue)",
            cacheControl: entry.freshness.cacheControl(at: Date())
        )
    }

    /// Stores a result just made for `key` as its original's cacheability
    /// allows (``ThumbnailCachePolicy``), and returns the answer.
    ///
    /// The cacheability is what the origin said in this load (`recorder`),
    /// else what it said last for `url`, else what the loader's tier stored
    /// with the original (`stored`: its fields and age, after a restart or
    /// from the fleet's Redis), else unknown: then nothing is kept and the
    /// answer is `no-cache`.
    private func finish(
        _ body: Data, format: ImageFormat, key: String, url: URL, recorder: OriginHeadRecorder, source: ImageSource,
        stored: OriginCacheability?
    ) -> Thumbnail {
        let now = Date()
        let origin = recorder.cacheability ?? origins.value(forURL: url.absoluteString) ?? stored ?? .unknown(at: now)
        let status = Self.cacheStatus(of: source)
        switch cachePolicy.decision(for: origin, now: now) {
        case .store(let freshness):
            let entry = results.store(body, format: format, freshness: freshness, forKey: key)
            return Thumbnail(
                body: body, format: format, entityTag: entry.entityTag, cacheStatus: status, cacheControl: freshness.cacheControl(at: now)
            )
        case .doNotStore(let cacheControl, let variesOnEverything):
            return Thumbnail(
                body: body, format: format, entityTag: EntityTag(parameters: key, body: body), cacheStatus: status,
                cacheControl: cacheControl, variesOnEverything: variesOnEverything
            )
        }
    }

    /// The image of a loader's `response` and where it came from, and not
    /// the response itself: it also holds the upstream body (16 MB for the
    /// largest photo of the bench's corpus), which, kept in the caller's
    /// frame, stayed alive while the encode waited for a CPU permit behind
    /// other requests' decodes.
    ///
    /// With them, for an original a cache tier served, the cacheability the
    /// head stored with it gives (its `Cache-Control`, `Expires`, `Date`
    /// and current `Age`).
    private static func imageAndSource(of response: ImageResponse) throws -> (Image, ImageSource, OriginCacheability?) {
        let stored = response.source == .network ? nil : response.head.map { OriginCacheability(head: $0, responseTime: Date()) }
        return (response.image, response.source, stored)
    }

    /// The `X-Cache` value of a source image from `source`: `miss` when it
    /// was downloaded, else `hit-` and the tier (`hit-memory`, `hit-disk`,
    /// `hit-shared`), or what the origin made of a stored one
    /// (`hit-revalidated` after a 304, `hit-stale` when the origin failed).
    static func cacheStatus(of source: ImageSource) -> String {
        switch source {
        case .network: "miss"
        case .memory: "hit-memory"
        case .disk: "hit-disk"
        case .sharedTier: "hit-shared"
        case .revalidated: "hit-revalidated"
        case .stale: "hit-stale"
        }
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
            return Self.thumbnail(hit: entry, tier: tier)
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
        let recorder = OriginHeadRecorder(url: request.url, memo: origins)
        var context = Self.decodeContext(for: request, storeCacheType: directStoreCacheType)
        context.responseModifier = recorder.modifier
        let (image, source, stored) = try await Self.imageAndSource(
            of: loader.response(for: ImageRequest(url: request.url, options: animatesAsWebP ? [] : .decodeFirstFrameOnly, context: context))
        )
        // Processing and encoding through the loader: each with a CPU
        // permit, in the loader's metrics and spans.
        let body: Data
        let chosen: ImageFormat
        if animatesAsWebP, let animation = image.animation {
            body = try await loader.encode { try Self.animatedWebP(animation, request) }
            chosen = .webp
        } else {
            let processed = try await loader.transform(image, with: ProcessingTransformer(request: request))
            chosen = format ?? (processed.pixelFormat.hasAlpha ? .png : .jpeg)
            body = try await loader.encode(processed, as: chosen, quality: Double(request.quality ?? Self.defaultQuality(for: chosen)) / 100)
        }
        return finish(body, format: chosen, key: key, url: request.url, recorder: recorder, source: source, stored: stored)
    }

    /// The smallest decode `request` can be made from, as a decoder's own
    /// thumbnail (DCT-scaled for JPEG, shrunk while inflating for PNG): a
    /// fit is the box fitted inside; a fill (fill-down, auto) the box
    /// covered, so the crop is cut from it at scale 1; a force the box
    /// exactly; a side of 0 leaves that side to the aspect ratio. The
    /// processing that follows then only crops, or resamples a little.
    static func decodeContext(for request: ProcessingRequest, storeCacheType: ImageCacheType) -> ImageContext {
        let target = request.targetSize
        var context = ImageContext()
        context.storeCacheType = storeCacheType
        guard target.width > 0 || target.height > 0 else { return context }
        // A side of 0 is unconstrained: a box side no image reaches.
        let unbounded = 1 << 24
        let box = PixelSize(width: target.width > 0 ? target.width : unbounded, height: target.height > 0 ? target.height : unbounded)
        context.thumbnail = ThumbnailOptions(size: box)
        guard target.width > 0, target.height > 0 else { return context }
        switch request.resizingType {
        case .fit: break
        // Auto is a fill or a fit by the source's orientation, unknown until
        // decoded: the cover serves both (a fit then resamples it down). The
        // crop is the server's own (gravity, offsets), so the decode covers
        // the box and crops nothing.
        case .fill, .fillDown, .auto: context.thumbnail?.contentMode = .cover
        case .force: context.thumbnail?.contentMode = .stretch
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
            // The whole encode holds one CPU permit: decode in it.
            let frame = try ImageProcessor.process(animation.decodeFrame(at: index), request)
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

    /// Loads the resized image: a DCT-scaled decode (`ThumbnailOptions`)
    /// close to the result, then ``ImageTransformers/Resize`` for the exact size.
    /// The answer is a still: an animation's first frame.
    private func load(_ request: ThumbnailRequest, recorder: OriginHeadRecorder) async throws -> ImageResponse {
        let resize = ImageTransformers.Resize(size: request.size, mode: request.mode)
        var context: ImageContext
        switch request.mode {
        case .fit:
            // The decoder's fit-inside thumbnail is the answer; the resize
            // only pins the rounding of the short side.
            context = ImageContext(transformer: resize, thumbnail: ThumbnailOptions(size: request.size))
        case .stretch:
            // The decoder's exact-size thumbnail is the stretched image.
            context = ImageContext(transformer: resize, thumbnail: ThumbnailOptions(size: request.size, contentMode: .stretch))
        case .fill:
            // The decoder's thumbnail covering the target (one side exact,
            // the other beyond it, whatever the aspect ratio); the resize
            // then only cuts the centre out.
            context = ImageContext(transformer: resize, thumbnail: ThumbnailOptions(size: request.size, contentMode: .cover))
        }
        context.responseModifier = recorder.modifier
        return try await loader.response(for: ImageRequest(url: request.url, options: .decodeFirstFrameOnly, context: context))
    }
}
