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
    /// configuration.defaultContext.thumbnailPixelSize = PixelSize(width: 512, height: 512)
    /// let loader = ImageLoader(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        // MARK: Parts

        /// Where bytes come from. A ``CurlDataLoader`` with its default
        /// configuration (6 concurrent downloads, 15 s timeout, 64 MiB
        /// response limit) by default, shared by every loader that does not
        /// set its own.
        public var dataLoader: any DataLoading = CurlDataLoader.shared

        /// Memory and disk caches, and the coders (``ImageCache/coders``) of
        /// every decode and encode of the loader. ``ImageCache/shared`` by
        /// default (memory sized from physical memory, disk under
        /// `$XDG_CACHE_HOME/AsyncWebImage/default`, the built-in coders).
        public var cache: ImageCache

        /// Decoders and encoders, tried in order: the cache's
        /// (``ImageCache/coders``), which own them. Setting this gives the
        /// loader the same memory and disk tiers with these coders; setting
        /// ``cache`` afterwards replaces them with the new cache's.
        /// ``ImageCoderRegistry/builtIn`` (JPEG, PNG) by default.
        public var coders: ImageCoderRegistry {
            get { cache.coders }
            set { cache = cache.with(coders: newValue) }
        }

        /// Bounds the loader's CPU work — decodes, transforms, encodes and
        /// preview decodes — so a burst cannot flood the cooperative thread
        /// pool. ``ConcurrencyLimiter/shared`` (one permit per core the
        /// process may use, shared by every loader) by default.
        public var cpuLimiter: ConcurrencyLimiter = .shared

        // MARK: Policy

        /// The context every load starts from, below the per-call context.
        /// Empty by default (every documented default applies).
        public var defaultContext = ImageContext()

        /// Rewrites options and context of every load; highest precedence.
        /// `nil` by default.
        public var optionsProcessor: ImageOptionsProcessor?

        /// Whether URLs that failed permanently are refused afterwards until
        /// loaded with `.retryFailed`. `true` by default.
        public var blocksFailedURLs = true

        /// The most URLs kept on the failed-URL list. 10,000 by default.
        public var failedURLCapacity = 10_000

        // MARK: Decoding

        /// The most pixels an image header may declare. 100 megapixels by default.
        public var maxPixelCount = 100_000_000

        /// The most pixels an animation may hold over all its frames, frame
        /// count × canvas (see ``ImageDecodingOptions/maxAnimationPixelCount``).
        /// One gigapixel by default. Playing or re-encoding an animation
        /// costs work in proportion to it, whatever the file's size (a 23 KB
        /// GIF can declare 1,000 one-pixel frames on a 1000×1000 canvas): a
        /// server lowers it.
        public var maxAnimationPixelCount = ImageDecodingOptions().maxAnimationPixelCount

        /// The most scans a JPEG may have (see ``ImageDecodingOptions/maxScanCount``). 100 by default.
        public var maxScanCount = ImageDecodingOptions().maxScanCount

        /// The most 8×8 blocks one JPEG decode may entropy-decode, summed over
        /// its scans (see ``ImageDecodingOptions/maxScanBlockCount``). 50 million by default.
        public var maxScanBlockCount = ImageDecodingOptions().maxScanBlockCount

        /// The most bytes one decode may allocate
        /// (``ImageDecodingOptions/maxDecodeMemoryBytes``). 512 MiB by default.
        public var maxDecodeMemoryBytes = 512 * 1024 * 1024

        /// Whether thumbnails and scale-downs may decode an image's embedded
        /// thumbnail instead of the full image when one can stand in for it
        /// (``ImageDecodingOptions/usesEmbeddedThumbnails``; HEIC). `true`
        /// by default.
        public var usesEmbeddedThumbnails = true

        /// The decoded-bytes limit of `.scaleDownLargeImages`. 60 MiB by default.
        public var scaleDownLimitBytes = 60 * 1024 * 1024

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
        /// responses govern the memory and disk tiers (RFC 9111).
        /// ``HTTPCacheMode/private`` (a cache for one user, an app) by
        /// default; ``HTTPCacheMode/shared`` for a server answering many
        /// users; ``HTTPCacheMode/ignoringHeaders`` for SDWebImage's behaviour.
        public var httpCacheMode: HTTPCacheMode = .private

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
        /// (see ``AllocatorTuning``): ``AllocatorTuning/default`` by default,
        /// so decode buffers are reused instead of mapped and faulted in on
        /// every decode. `nil` leaves glibc's allocator as it is.
        public var allocatorTuning: AllocatorTuning? = .default

        /// The most bytes of downloaded bodies the loader's loads hold at
        /// once, or `nil` (the default) for no bound but the number of loads.
        ///
        /// A load holds its response body from its download until its decode
        /// and transform are done, and under load most of that time goes to
        /// waiting for a ``cpuLimiter`` permit: without a bound, a server
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
        /// ``cpuLimiter``'s ``ConcurrencyLimiter/limit`` hold a body, a load
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
