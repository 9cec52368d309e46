import Foundation
public import Logging
public import Metrics
public import Tracing

extension ImageLoader {
    /// Everything an ``ImageLoader`` is built from. Every value has a
    /// documented default; change what you need:
    ///
    /// ```swift
    /// var configuration = ImageLoader.Configuration()
    /// configuration.defaultContext.thumbnail = ThumbnailOptions(size: PixelSize(width: 512, height: 512))
    /// let loader = ImageLoader(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        // MARK: Parts

        /// Where bytes come from. A ``CurlDataLoader`` with its default
        /// configuration (6 concurrent downloads, 15 s timeout, 64 MiB
        /// response limit) by default, shared by every loader that does not
        /// set its own.
        public var dataLoader: any DataLoading = CurlDataLoader.shared

        /// Memory and disk caches. ``ImageCache/shared`` by default (memory
        /// sized from physical memory, disk under
        /// `$XDG_CACHE_HOME/AsyncWebImage/default`).
        public var cache: ImageCache

        /// Decoders and encoders, tried in order, for every decode and encode
        /// the loader runs (network, disk and shared-tier data alike).
        /// ``ImageCoderRegistry/builtIn`` (JPEG, PNG) by default; register a
        /// format product's coder to read more:
        /// `configuration.coders.add(WebPCoder())`.
        public var coders: ImageCoderRegistry = .builtIn

        /// Bounds the loader's CPU work — decodes, transforms, encodes and
        /// preview decodes — so a burst cannot flood the cooperative thread
        /// pool. `nil` by default: one bound for the whole process, one job
        /// per core it may use, shared by every loader that sets none, so
        /// that CPU work stays bounded by the machine, not by the number of
        /// loaders. Limits of its own give the loader a bound of its own.
        public var cpuLimits: ImageLoader.CPULimits? {
            didSet { cpuLimiter = cpuLimits.map(ConcurrencyLimiter.init) ?? .shared }
        }

        /// The limiter the ``cpuLimits`` make (the process-wide one without
        /// them); set directly by the package's tests to share one between loaders.
        package var cpuLimiter: ConcurrencyLimiter = .shared

        // MARK: Policy

        /// The context every load starts from, below the per-call context.
        /// Empty by default (every documented default applies).
        public var defaultContext = ImageContext()

        /// Rewrites every request before anything else happens; the top of
        /// the precedence chain (SDWebImage's `SDWebImageOptionsProcessor`).
        /// It receives the request with its context already merged over
        /// ``defaultContext`` and returns the request to load (its URL,
        /// options, context and priority may all change): to enforce a
        /// policy globally, e.g. a thumbnail size for every load of a host.
        /// `nil` by default.
        public var optionsProcessor: (@Sendable (ImageRequest) -> ImageRequest)?

        /// How failed downloads are retried when the request's context names
        /// no policy (``ImageContext/retryPolicy``). ``DataRequest/RetryPolicy/none`` by
        /// default (see ``DataRequest/RetryPolicy`` for why).
        public var retryPolicy: DataRequest.RetryPolicy = .none

        /// Whether URLs that failed permanently are refused afterwards until
        /// loaded with `.retryFailed`. `true` by default.
        public var blocksFailedURLs = true

        /// The most URLs kept on the failed-URL list. 10,000 by default.
        public var failedURLCapacity = 10_000

        // MARK: Decoding

        /// The bounds every decode of the loader is held to: pixels, decode
        /// memory, animation pixels, JPEG scans, and the decoded bytes of
        /// `.scaleDownLargeImages` (see ``ImageDecodingOptions/Limits`` for
        /// each default). The one owner of these limits: every decode the
        /// loader runs, and every decode of stored data, gets them whole. A
        /// server lowers them for untrusted input.
        public var decodingLimits = ImageDecodingOptions.Limits()

        /// Whether thumbnails and scale-downs may decode an image's embedded
        /// thumbnail instead of the full image when one can stand in for it
        /// (``ImageDecodingOptions/usesEmbeddedThumbnails``; HEIC). `true`
        /// by default.
        public var usesEmbeddedThumbnails = true

        /// Whether decoded images are turned upright by their EXIF
        /// orientation (then reported as `.up`). `false` by default: pixels stay
        /// as stored and ``Image/orientation`` says how to display them.
        public var appliesOrientation = false

        /// The shortest time between two preview decodes of one download.
        /// 100 ms by default; at most one preview decode runs at a time per download.
        public var previewInterval: Duration = .milliseconds(100)

        /// The quality of JPEG data written for transformed images. 0.9 by default.
        public var transformedImageQuality = 0.9

        // MARK: HTTP caching

        /// How `Cache-Control`, `Expires`, `Vary` and the validators of
        /// responses govern the memory, disk and shared tiers (RFC 9111).
        /// ``ImageLoader/HTTPCacheMode/private`` (a cache for one user, an app) by
        /// default; ``ImageLoader/HTTPCacheMode/shared`` for a server answering many
        /// users. Both keep a response that says nothing about its freshness
        /// for ``defaultFreshnessLifetime``; ``ImageLoader/HTTPCacheMode/strictPrivate``
        /// and ``ImageLoader/HTTPCacheMode/strictShared`` follow RFC 9111 to the
        /// letter, as browsers and proxies do; ``ImageLoader/HTTPCacheMode/ignoringHeaders``
        /// keeps everything whatever its headers say.
        public var httpCacheMode: ImageLoader.HTTPCacheMode = .private

        /// How long a response that gives no freshness of its own (no
        /// `max-age`, `s-maxage` or `Expires`, nor `no-cache` or
        /// `must-revalidate`) is served from the tiers without asking the
        /// origin, in the ``ImageLoader/HTTPCacheMode/private`` and
        /// ``ImageLoader/HTTPCacheMode/shared`` modes; after that it is
        /// revalidated with its validators (downloaded again when it has
        /// none). One week by default, SDWebImage's `maxDiskAge`; zero asks
        /// the origin before every reuse. The strict modes and
        /// ``ImageLoader/HTTPCacheMode/ignoringHeaders`` do not read it.
        public var defaultFreshnessLifetime: Duration = .seconds(7 * 86_400)

        // MARK: Observability

        /// Where the loader logs: debug lines along each load, warnings for
        /// what it recovers from (see the Observability article).
        /// `Logger(label: "AsyncWebImage")` by default, which goes where the
        /// application's `LoggingSystem` sends it; a call's
        /// ``ImageContext/logger`` takes its place for that call.
        public var logger = Logger(label: "AsyncWebImage")

        /// Where the loader's counters, timers and gauges are made. `nil` by
        /// default: the factory bootstrapped in `MetricsSystem` when the
        /// loader is created (a no-op factory unless the application bootstraps one).
        public var metricsFactory: (any MetricsFactory)?

        /// The tracer of the loader's spans and of the trace context injected
        /// into its requests. `nil` by default: `InstrumentationSystem.tracer`
        /// when the loader is created; with none bootstrapped, the loader
        /// starts no span and injects nothing.
        public var tracer: (any Tracer)?

        // MARK: Memory

        /// The allocator settings the first loader of the process applies
        /// (see ``ImageLoader/AllocatorTuning``). `nil` by default: the library leaves
        /// glibc's allocator as the application set it, since the settings
        /// are process-wide. A server that decodes all day sets
        /// ``ImageLoader/AllocatorTuning/default``, so decode buffers are reused
        /// instead of mapped and faulted in on every decode.
        public var allocatorTuning: ImageLoader.AllocatorTuning?

        /// The most bytes of downloaded bodies the loader's loads hold at
        /// once, or `nil` (the default) for no bound but the number of loads.
        ///
        /// A load holds its response body from its download until its decode
        /// and transform are done, and under load most of that time goes to
        /// waiting for a CPU permit (``cpuLimits``): without a bound, a server
        /// with many requests in flight holds every one of their bodies at
        /// once, a few megabytes each, while one core decodes one of them.
        /// With a budget, a load waits before it starts its download while
        /// the bodies held reach the budget (first in, first out), so the
        /// memory the bodies take is bounded in bytes: the budget, plus at
        /// most one body's overshoot for each download under way. A
        /// download counts its declared length (or the bytes received so
        /// far) and, until it knows either, the size bodies have had lately
        /// (1 MiB at first and at most, 16 KiB at least, so loads of small
        /// images are not held to a few while each waits for its response
        /// head). While fewer loads than
        /// ``cpuLimits``' ``ImageLoader/CPULimits/maxConcurrentWork`` hold a body, a load
        /// always starts, whatever the bytes: every core has a body to work
        /// on, and an image larger than the budget still loads. Loads served
        /// from a cache tier take nothing from it.
        ///
        /// The budget buys look-ahead: bodies downloaded while others are
        /// decoded. A small one (a few MiB per permit) keeps the peak low
        /// and costs throughput only when origins are slow; the thumbnail
        /// server example sets 2 MiB per permit.
        public var bodyBudgetBytes: Int?

        /// Creates the default configuration, on ``ImageCache/shared``.
        public init() {
            cache = .shared
        }

        /// Creates a configuration around an existing cache.
        public init(cache: ImageCache) {
            self.cache = cache
        }
    }
}
