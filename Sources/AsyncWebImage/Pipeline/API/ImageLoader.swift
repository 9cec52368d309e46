public import Foundation
import Synchronization
import AWILocking
import Logging
import Tracing

/// Loads images by URL: memory cache, disk cache, then the network, with
/// progressive previews, transforms and two levels of coalescing.
///
/// ```swift
/// let loader = ImageLoader()
/// for try await image in loader.images(url, options: .progressiveLoad) {
///     show(image)                              // previews, then the final image
/// }
/// let image = try await loader.image(url)        // just the final one
/// let response = try await loader.response(url)  // with its source, data and head
/// ```
///
/// Every call has a URL form and an ``ImageRequest`` form that return the
/// same type: ``image(_:options:context:)`` and ``image(for:)`` an ``Image``,
/// ``response(_:options:context:)`` and ``response(for:)`` an ``ImageResponse``,
/// ``data(_:options:context:)`` and ``data(for:)`` an ``ImageDataResponse``,
/// ``images(_:options:context:)`` and ``images(for:)`` the images,
/// ``events(_:options:context:)`` and ``events(for:)`` the events.
///
/// Identical concurrent loads share one download (the download coalescer)
/// and one decode and transform per distinct result. Cancelling the calling
/// task (or breaking out of the loop) cancels the load; work that other
/// callers still wait for goes on.
///
/// - Important: Every method may be called from any task or thread.
public final class ImageLoader: Sendable {
    /// What the loader was built from.
    public let configuration: Configuration

    /// A loader with the default configuration, on ``ImageCache/shared`` and
    /// ``CurlDataLoader/shared``. It lives as long as the process.
    public static let shared = ImageLoader(configuration: Configuration(), ownsSharedParts: true)

    /// Set by ``shutdown()``; every load checks it first.
    let isShutDown = Atomic<Bool>(false)
    /// Whether ``shutdown()`` has been called.
    var hasShutDown: Bool { isShutDown.load(ordering: .relaxed) }
    /// Whether ``shutdown()`` also shuts down ``CurlDataLoader/shared`` and
    /// ``ImageCache/shared`` when configured with them (only ``shared`` does:
    /// other loaders may still use them).
    private let ownsSharedParts: Bool

    let downloads: DownloadCoalescer
    /// The configuration of every download coalescer of the loader: the
    /// loader-wide retry policy.
    let coalescerConfiguration: DownloadCoalescer.Configuration
    /// The logger, metric handles and tracer (made once, here).
    let telemetry: LoaderTelemetry
    let tasks = ImageTaskCoalescer()
    let failedURLs: FailedURLSet
    /// Coalescers for per-request data loaders (``ImageContext/dataLoader``),
    /// one per loader object, so such requests still share downloads.
    private let otherDownloads = Lock<[ObjectIdentifier: (any DataLoading, DownloadCoalescer)]>([:])

    /// Whether the configuration's default context sets nothing (then a
    /// call's context needs no merging).
    let defaultContextIsEmpty: Bool
    /// The data loader's scheme allow-list (``DataLoading/allowedSchemes``),
    /// read once: the loader refuses other schemes before any work.
    let allowedSchemes: Set<String>
    /// Whether the scheme allow-list has `http` / `https`, for the cheap URL check.
    let httpAllowed: Bool
    let httpsAllowed: Bool
    /// The decode-options key suffix of a load with no decode size and no
    /// scale-down (only the orientation switch can add to it).
    let plainKeySuffix: String
    /// Whether the configuration has an options processor (read on every
    /// call; an optional existential is costlier to test than a Bool).
    let hasOptionsProcessor: Bool
    /// `stale-while-revalidate` refreshes running after their stale entry was served.
    let backgroundRevalidations = BackgroundRevalidations()
    /// The client certificate of the configuration's data loader
    /// (``DataLoading/clientCertificate``), read once and stamped on every
    /// request so that it is part of the request's identity.
    let defaultClientCertificate: DataRequest.TLSClientCertificate?
    /// The HTTP caching rules every stage and every fetch judges by: the
    /// configuration's mode and default lifetime.
    let cachePolicy: HTTPCachePolicy
    /// The bound on downloaded bodies held at once
    /// (``Configuration/bodyBudgetBytes``); `nil` when there is none.
    let bodyBudget: BodyByteBudget?

    // The stages of a load (``ImageLoader+Work.swift`` runs them in order):
    // built once from the configuration, each holding only what its job needs.
    /// The final image in memory.
    let memoryStage: MemoryStage
    /// The stored bytes on disk and in the shared tier, decoded.
    let diskStage: DiskStage
    /// Bytes from the origin, and the fleet lease.
    let fetchStage: FetchStage
    /// Bytes to pixels with the loader's coders.
    let decodeStage: DecodeStage
    /// The request's transformer.
    let transformStage: TransformStage
    /// Images and bytes to the tiers.
    let storeStage: StoreStage

    /// Loads that hold a downloaded body under
    /// ``Configuration/bodyBudgetBytes`` (from the start of their download to
    /// the end of their decode and transform) or wait for room in it, now;
    /// 0 without a budget.
    ///
    /// Work in progress that the CPU limiter does not see while it downloads:
    /// a server deciding whether it is idle (to give memory back, say) asks both.
    public var loadsHoldingBodies: Int {
        guard let bodyBudget else { return 0 }
        return bodyBudget.reservationCount + bodyBudget.waitingCount
    }

    /// Creates a loader.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, ownsSharedParts: false)
    }

    private init(configuration: Configuration, ownsSharedParts: Bool) {
        self.ownsSharedParts = ownsSharedParts
        self.configuration = configuration
        ImageLoader.AllocatorTuning.settle(configuration.allocatorTuning)
        defaultContextIsEmpty = configuration.defaultContext.isEmpty
        allowedSchemes = configuration.dataLoader.allowedSchemes
        httpAllowed = allowedSchemes.contains("http")
        httpsAllowed = allowedSchemes.contains("https")
        hasOptionsProcessor = configuration.optionsProcessor != nil
        defaultClientCertificate = configuration.dataLoader.clientCertificate
        plainKeySuffix = ImageDecodingOptions(applyOrientation: configuration.appliesOrientation).cacheKeySuffix
        let telemetry = LoaderTelemetry(logger: configuration.logger, factory: configuration.metricsFactory, tracer: configuration.tracer)
        var coalescerConfiguration = DownloadCoalescer.Configuration()
        coalescerConfiguration.retryPolicy = configuration.retryPolicy
        self.coalescerConfiguration = coalescerConfiguration
        self.telemetry = telemetry
        downloads = DownloadCoalescer(loader: configuration.dataLoader, configuration: coalescerConfiguration, retryObserver: Self.retryObserver(telemetry))
        failedURLs = FailedURLSet(capacity: configuration.failedURLCapacity)
        // One load per CPU permit always proceeds: the budget bounds the
        // bodies beyond those, never the cores' work.
        bodyBudget = configuration.bodyBudgetBytes.map { BodyByteBudget(limit: $0, minimumLoads: configuration.cpuLimiter.limit) }
        let limiter = configuration.cpuLimiter
        let decodeStage = DecodeStage(coders: configuration.coders, limiter: limiter, telemetry: telemetry)
        var limits = ImageDecodingOptions()
        limits.limits = configuration.decodingLimits
        self.decodeStage = decodeStage
        let cachePolicy = HTTPCachePolicy(configuration)
        self.cachePolicy = cachePolicy
        memoryStage = MemoryStage(policy: cachePolicy)
        diskStage = DiskStage(policy: cachePolicy, decode: decodeStage, decodeLimits: limits)
        fetchStage = FetchStage(
            coders: configuration.coders, limiter: limiter, telemetry: telemetry, bodyBudget: bodyBudget,
            previewInterval: configuration.previewInterval
        )
        transformStage = TransformStage(limiter: limiter, telemetry: telemetry)
        storeStage = StoreStage(
            coders: configuration.coders, limiter: limiter, telemetry: telemetry,
            transformedImageQuality: configuration.transformedImageQuality
        )
    }

    deinit {
        // Background revalidations hold the loader only weakly: they end with it.
        backgroundRevalidations.cancelAll()
    }

    // MARK: Loading

    /// The final image of `request`, with its thumbnail and transform
    /// applied; no previews are decoded.
    ///
    /// ```swift
    /// let avatar = try await loader.image(for: ImageRequest(url: url, thumbnail: .init(width: 96, height: 96, contentMode: .fill)))
    /// ```
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    nonisolated(nonsending) public func image(for request: ImageRequest) async throws -> Image {
        try await response(for: request).image
    }

    /// The final image of `request` with its data and where it came from.
    ///
    /// With `.refreshCached` the result is the revalidated image: the
    /// cached one when the server says it has not changed, else the new one.
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    nonisolated(nonsending) public func response(for request: ImageRequest) async throws -> ImageResponse {
        try await loadResponse(request.url, options: Self.loadOptions(request, decodes: true), context: request.context)
    }

    /// ``response(for:)`` from its parts: the URL calls come here directly,
    /// so a memory hit through `image(url)` copies no ``ImageRequest`` (the
    /// context it would carry is a dozen references retained and released).
    @inline(__always)
    private func loadResponse(_ url: URL, options: ImageOptions, context: ImageContext) async throws -> ImageResponse {
        try await load(url, options: options, context: context, hit: { Self.hitResponse($0, url: url) }, full: { $0 })
    }

    /// A load's result in the shape its call returns: `hit` makes it from a
    /// memory entry the fast path found, `full` from the response of any
    /// other load. `image(url)` takes the entry's image and builds no
    /// response on a hit (its copy and release were a fifth of the hit).
    @inline(__always)
    private func load<Output>(
        _ url: URL, options: ImageOptions, context: ImageContext,
        hit: (MemoryCache.Entry) -> Output, full: (ImageResponse) -> Output
    ) async throws -> Output {
        // Without a tracer the load runs as it is: no span, no task-local.
        guard let span = telemetry.startSpan("image.load", parent: nil, kind: .client) else {
            return try await loadImage(url, options: options, context: context, span: nil, hit: hit, full: full)
        }
        defer { span.end() }
        do {
            return try await loadImage(url, options: options, context: context, span: span, hit: hit, full: full)
        } catch {
            LoaderTelemetry.record(error, on: span)
            throw error
        }
    }

    /// The response of a memory hit on `entry`.
    private static func hitResponse(_ entry: MemoryCache.Entry, url: URL) -> ImageResponse {
        var response = ImageResponse(image: entry.image, data: nil, source: .memory, url: url)
        response.headSource = entry.http.map { .stored($0) }
        return response
    }

    /// The encoded bytes of `request`'s image, not decoded, with the
    /// response head they came with: from the disk tier, the shared tier or
    /// the network, and stored as a load stores them (SDWebImage's
    /// `.avoidDecodeImage`). For a proxy that passes bytes on, or to warm
    /// the disk cache.
    ///
    /// The request's thumbnail and transformer do not apply: they change
    /// pixels, and there are none.
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    public func data(for request: ImageRequest) async throws -> ImageDataResponse {
        var context = request.context
        context.transformer = nil
        context.thumbnail = nil
        let options = Self.loadOptions(request, decodes: false)
        let result: LoadResult
        if let span = telemetry.startSpan("image.load", parent: nil, kind: .client) {
            defer { span.end() }
            do {
                try Task.checkCancellation()
                if hasShutDown { throw ImageError.shutDown }
                result = try await ServiceContext.withValue(span.context) {
                    try await fullLoad(request.url, options: options, context: context, memoryChecked: false)
                }
            } catch {
                LoaderTelemetry.record(error, on: span)
                throw error
            }
        } else {
            try Task.checkCancellation()
            if hasShutDown { throw ImageError.shutDown }
            result = try await fullLoad(request.url, options: options, context: context, memoryChecked: false)
        }
        // A data load always ends with its bytes; a result without them is a bug, reported not trapped.
        guard let data = result.data else { throw ImageError.invalidImage("the load ended without its data") }
        return ImageDataResponse(data: data, source: result.source, url: result.url, head: result.headSource?.head(url: result.url))
    }

    /// The images of `request`: previews while bytes arrive (with
    /// `.progressiveLoad`), then the final image; the sequence ends after it.
    ///
    /// Nothing happens until the sequence is iterated; each iteration is a
    /// load of its own (sharing work with identical loads).
    ///
    /// - Returns: A sequence that throws ``ImageError`` on failure and
    ///   `CancellationError` when the iterating task is cancelled.
    public func images(for request: ImageRequest) -> ImageLoader.ImageSequence {
        ImageLoader.ImageSequence(events: events(for: request))
    }

    /// The events of a load of `request`: `.progress`, `.preview` (with
    /// `.progressiveLoad`), then `.finished`. A slow consumer sees the newest
    /// progress and preview, never a backlog, and never misses the final
    /// response.
    public func events(for request: ImageRequest) -> ImageLoader.ImageEventSequence {
        let options = Self.loadOptions(request, decodes: true)
        let url = request.url
        let context = request.context
        return ImageLoader.ImageEventSequence { [self] channel in
            let wantsPreviews = options.contains(.progressiveLoad)
            // The same `image.load` span as `image(for:)`, current while the
            // load starts so that the work's stages nest under it; the
            // stream's iterator ends it.
            guard let span = telemetry.startSpan("image.load", parent: nil, kind: .client) else {
                await start(url, options: options, context: context, channel: channel, wantsPreviews: wantsPreviews)
                return nil
            }
            let load = LoadSpan(span)
            await ServiceContext.withValue(span.context) {
                await start(url, options: options, context: context, channel: channel, wantsPreviews: wantsPreviews)
            }
            return load
        }
    }

    // MARK: Loading by URL

    /// The images of `url`: ``images(for:)`` of a request for it — the
    /// mission's `for try await image in loader.images(url)`.
    ///
    /// - Parameters:
    ///   - url: The image's URL (`http` or `https` unless configured otherwise).
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    public func images(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) -> ImageLoader.ImageSequence {
        images(for: ImageRequest(url: url, options: options, context: context))
    }

    /// The events of a load of `url`: ``events(for:)`` of a request for it.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    public func events(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) -> ImageLoader.ImageEventSequence {
        events(for: ImageRequest(url: url, options: options, context: context))
    }

    /// The final image of `url`: ``image(for:)`` of a request for it.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    nonisolated(nonsending) public func image(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) async throws -> Image {
        try await load(url, options: options, context: context, hit: { $0.image }, full: { $0.image })
    }

    /// The final image of `url` with its data, where it came from and its
    /// head: ``response(for:)`` of a request for it.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    nonisolated(nonsending) public func response(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) async throws -> ImageResponse {
        // The options carry no priority bits beyond the caller's own, as
        // `loadOptions` of a `.normal` request would give them.
        try await loadResponse(url, options: options, context: context)
    }

    /// The encoded bytes of `url`'s image: ``data(for:)`` of a request for it.
    ///
    /// - Parameters:
    ///   - url: The image's URL.
    ///   - options: Switches for this load.
    ///   - context: Settings for this load, over the loader's defaults.
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task is cancelled.
    public func data(_ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) async throws -> ImageDataResponse {
        try await data(for: ImageRequest(url: url, options: options, context: context))
    }

    /// The options a load of `request` runs with: the request's, its
    /// priority as the pipeline's bits, and whether it decodes.
    static func loadOptions(_ request: ImageRequest, decodes: Bool) -> ImageOptions {
        var options = request.options
        switch request.priority {
        case .low: options.insert(.lowPriority)
        case .normal: break
        case .high: options.insert(.highPriority)
        }
        if !decodes { options.insert(.avoidDecodeImage) }
        return options
    }

    /// The body of ``response(for:)``. It runs on the caller's executor
    /// (the public calls are `nonisolated(nonsending)`), so a memory hit,
    /// a synchronous lookup, makes no executor hop at all; everything else
    /// leaves it, because `fullLoad` is `@concurrent`. The fast paths have no
    /// stage of their own; the full path runs with `span`'s context current,
    /// so its stages' spans are children of it (binding the task-local costs
    /// what a memory hit as a whole does, so only the full path pays it).
    // Inlined into both branches of `image(_:)`: an async call of its own
    // costs a memory hit an executor check on entry.
    @inline(__always)
    private func loadImage<Output>(
        _ url: URL, options: ImageOptions, context: ImageContext, span: (any Span)?,
        hit: (MemoryCache.Entry) -> Output, full: (ImageResponse) -> Output
    ) async throws -> Output {
        try Task.checkCancellation()
        if hasShutDown { throw ImageError.shutDown }
        // The fast paths: a memory hit (one lookup), or joining the load
        // already making this result (one wait); no request, no channel.
        let memoryChecked: Bool
        let keys: ImageRequestKeys?
        switch try fastPath(url, options: options, context: context) {
        case .hit(let entry):
            return hit(entry)
        case .inFlight(let key, let known):
            telemetry.countJoin()
            if case .finished(let result) = try await tasks.awaitResult(key) {
                guard let result else { throw CancellationError() }
                return full(try result.imageResponse())
            }
            // The work ended in between: the shared work looks in memory again.
            (memoryChecked, keys) = (true, known)
        case .none(let checked, let known):
            (memoryChecked, keys) = (checked, known)
        }
        guard let span else {
            return full(try await fullLoad(url, options: options, context: context, memoryChecked: memoryChecked, keys: keys).imageResponse())
        }
        return full(try await ServiceContext.withValue(span.context) {
            try await fullLoad(url, options: options, context: context, memoryChecked: memoryChecked, keys: keys).imageResponse()
        })
    }

    /// The full path of a load: a request, a channel, the shared work.
    ///
    /// - Parameter keys: The keys the fast path resolved, if it did.
    @concurrent private func fullLoad(
        _ url: URL, options: ImageOptions, context: ImageContext, memoryChecked: Bool, keys: ImageRequestKeys? = nil
    ) async throws -> LoadResult {
        let request = try await makeRequest(url, options: options, context: context, keys: keys)
        let channel = ImageEventChannel()
        defer { channel.terminate() }
        await start(request, channel: channel, wantsPreviews: false, wantsProgress: false, memoryChecked: memoryChecked)
        // Without `.refreshCached` the first response is the only one: return
        // it without asking the channel for its end.
        let responses = request.options.contains(.refreshCached) ? 2 : 1
        var last: LoadResult?
        var received = 0
        while received < responses, let event = try await channel.next() {
            if case .finished(let response) = event {
                last = response
                received += 1
            }
        }
        // A load that ends without a response was cancelled (the channel ends quietly then).
        guard let last else { throw CancellationError() }
        return last
    }

    // MARK: Lifecycle

    /// Shuts the loader down: no load starts any more (each fails with
    /// ``ImageError/shutDown``), the loads in flight are cancelled (their
    /// callers get ``ImageError/shutDown``), then, once their work has
    /// ended, the disk writes in flight are waited for, and the threads of
    /// the loader's parts end: its ``CurlDataLoader``'s (transfers
    /// cancelled), its cache's disk I/O thread and its shared tier's threads
    /// and connections (``ImageCache/shutdown()``).
    ///
    /// `deinit` still cleans up a loader nobody shuts down; this is the way
    /// out for a server that stops (see ``ImageLoader/Service``). Calling it
    /// again returns at once.
    ///
    /// A loader shuts down the data loader and the cache it was configured
    /// with, except ``CurlDataLoader/shared`` and ``ImageCache/shared``, which
    /// other loaders may be using; ``shared`` shuts those down too.
    public func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        telemetry.logger.debug("shutting down", metadata: ["awi.loads": .stringConvertible(tasks.count)])
        // Cancel the work and stop the transfers under it at once; then wait
        // for the work to end (bounded: a task recorded late is cancelled on
        // a later round), so that no store starts after the writes are waited for.
        var tasks = tasks.cancelAll()
        var dataLoaders: [CurlDataLoader] = []
        if let curl = configuration.dataLoader as? CurlDataLoader, ownsSharedParts || !curl.isShared {
            dataLoaders.append(curl)
        }
        for loader in otherDownloads.withLock({ $0.values.map(\.0) }) {
            if let curl = loader as? CurlDataLoader, ownsSharedParts || !curl.isShared { dataLoaders.append(curl) }
        }
        for loader in dataLoaders { await loader.shutdown() }
        for _ in 0..<100 {
            for task in tasks { await task.value }
            guard self.tasks.count > 0 else { break }
            try? await Task.sleep(for: .milliseconds(10))
            tasks = self.tasks.cancelAll()
        }
        let cache = configuration.cache
        if ownsSharedParts || !cache.isShared {
            await cache.shutdown()
        }
    }

    // MARK: Failed URLs

    /// Whether `url` is on the failed-URL list for some request variant
    /// (refused without `.retryFailed`). The list is kept per request
    /// identity (URL plus credentials and other header fields), so a URL
    /// blocked for one set of credentials still loads with another.
    public func isBlocked(_ url: URL) -> Bool {
        failedURLs.containsAnyVariant(of: url.absoluteString)
    }

    /// Takes `url` (for every request variant) off the failed-URL list, or
    /// everything when `url` is `nil`.
    public func unblock(_ url: URL? = nil) {
        if let url { failedURLs.removeEveryVariant(of: url.absoluteString) } else { failedURLs.removeAll() }
    }

    // MARK: Diagnostics

    /// Distinct loads in flight (callers sharing one count once): a gauge
    /// for server metrics, and zero when the loader is idle.
    public var activeLoadCount: Int { tasks.count }

    /// CPU jobs of the loader's limit (``Configuration/cpuLimits``) running
    /// or waiting for their turn now — decodes, transforms, encodes, the
    /// application's own through ``transform(_:with:)`` and ``encode(_:)``
    /// — and zero when its CPU is idle. With the process-wide limit, every
    /// loader sharing it counts. A server deciding whether it is idle (to
    /// give memory back, say) asks this and ``loadsHoldingBodies``.
    public var cpuWorkCount: Int {
        let limiter = configuration.cpuLimiter
        return limiter.limit - limiter.availablePermits + limiter.waitingCount
    }

    // MARK: Internals

    /// The logger of a call: its context's, else the loader's.
    func logger(for context: ImageContext) -> Logger {
        context.logger ?? telemetry.logger
    }

    /// Logs and counts each retry of the loader's downloads.
    static func retryObserver(_ telemetry: LoaderTelemetry) -> DownloadTransfer.RetryObserver {
        { request, error, number in
            telemetry.countRetry()
            // A retry is the library recovering on its own: nothing for an operator to act on.
            telemetry.logger.debug("retrying download", metadata: [
                "awi.download": .string(String(SHA256.hexDigest(request.key.description).prefix(12))),
                "awi.attempt": .stringConvertible(number),
                "awi.error": .string((error as? ImageError)?.caseName ?? String(describing: type(of: error))),
            ])
        }
    }

    /// The download coalescer for `dataLoader`, or the loader's own.
    func downloadCoalescer(for dataLoader: (any DataLoading)?) -> DownloadCoalescer {
        guard let dataLoader else { return downloads }
        let object = dataLoader as AnyObject
        // Value-type loaders have no stable identity: give them a coalescer of their own.
        guard type(of: dataLoader) is AnyClass else {
            return DownloadCoalescer(loader: dataLoader, configuration: coalescerConfiguration, retryObserver: Self.retryObserver(telemetry))
        }
        let id = ObjectIdentifier(object)
        return otherDownloads.withLock { table in
            if let (_, coalescer) = table[id] { return coalescer }
            let coalescer = DownloadCoalescer(loader: dataLoader, configuration: coalescerConfiguration, retryObserver: Self.retryObserver(telemetry))
            table[id] = (dataLoader, coalescer)
            return coalescer
        }
    }
}
