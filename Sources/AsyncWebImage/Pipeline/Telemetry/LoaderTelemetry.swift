import Foundation
import HTTPTypes
import Logging
import Metrics
import Tracing

/// A loader's logger, metric handles and tracer, made once in
/// ``ImageLoader/init(configuration:)`` so that a load only increments
/// handles it already holds (no factory call, no dimension array per load).
///
/// Metric names and labels are listed in the Observability article; every
/// label value comes from a closed set (outcomes, ``ImageError`` case
/// names), never from a URL.
final class LoaderTelemetry: Sendable {
    /// Where a load's result came from, the `outcome` label of `awi_loads_total`.
    enum Outcome: String, Sendable, CaseIterable {
        case memory, disk, shared, network
        case notModified = "not_modified"
        /// A stored response served stale because the origin failed (RFC 9111 §4.2.4, `stale-if-error`).
        case staleOnError = "stale_on_error"
        case error
    }

    let logger: Logger
    /// Whether `logger` takes debug records, asked once: the memory fast
    /// path logs each hit at debug, and asking the handler there copied the
    /// logger's existential on every hit. The logger is a constant, so its
    /// level is the one its handler had when the loader was made.
    let logsDebug: Bool
    let factory: any MetricsFactory
    /// The tracer, or `nil` when none is bootstrapped (a ``NoOpTracer``): then
    /// no span is started and no context is injected, at no cost.
    let tracer: (any Tracer)?

    // One handle per outcome, not a dictionary: a memory hit counts
    // without hashing the outcome's raw-value string.
    private let memoryLoads: Counter
    private let diskLoads: Counter
    private let sharedLoads: Counter
    private let networkLoads: Counter
    private let notModifiedLoads: Counter
    private let staleOnErrorLoads: Counter
    let bytesDownloaded: Counter
    let retries: Counter
    let coalescedJoins: Counter
    let downloadTimer: Metrics.Timer
    let decodeTimer: Metrics.Timer
    let transformTimer: Metrics.Timer
    let encodeTimer: Metrics.Timer
    /// Pixels decoded (width × height of each decode's result): what a
    /// reduced decode saved shows here.
    let decodedPixels: Counter

    private let activeTransfers: Gauge
    private let queuedTransfers: Gauge
    private let memoryCost: Gauge
    private let memoryCount: Gauge
    private let diskSize: Gauge

    init(logger: Logger, factory: (any MetricsFactory)?, tracer: (any Tracer)?) {
        self.logger = logger
        logsDebug = logger.logLevel <= .debug
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        let tracer = tracer ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
        func loads(_ outcome: Outcome) -> Counter {
            Counter(label: "awi_loads_total", dimensions: [("outcome", outcome.rawValue)], factory: factory)
        }
        memoryLoads = loads(.memory)
        diskLoads = loads(.disk)
        sharedLoads = loads(.shared)
        networkLoads = loads(.network)
        notModifiedLoads = loads(.notModified)
        staleOnErrorLoads = loads(.staleOnError)
        bytesDownloaded = Counter(label: "awi_downloaded_bytes_total", factory: factory)
        retries = Counter(label: "awi_retries_total", factory: factory)
        coalescedJoins = Counter(label: "awi_coalesced_joins_total", factory: factory)
        downloadTimer = Metrics.Timer(label: "awi_download_duration_seconds", factory: factory)
        decodeTimer = Metrics.Timer(label: "awi_decode_duration_seconds", factory: factory)
        transformTimer = Metrics.Timer(label: "awi_transform_duration_seconds", factory: factory)
        encodeTimer = Metrics.Timer(label: "awi_encode_duration_seconds", factory: factory)
        decodedPixels = Counter(label: "awi_decoded_pixels_total", factory: factory)
        activeTransfers = Gauge(label: "awi_active_transfers", factory: factory)
        queuedTransfers = Gauge(label: "awi_queued_transfers", factory: factory)
        memoryCost = Gauge(label: "awi_memory_cache_cost_bytes", factory: factory)
        memoryCount = Gauge(label: "awi_memory_cache_count", factory: factory)
        diskSize = Gauge(label: "awi_disk_cache_size_bytes", factory: factory)
    }

    /// Counts one load that ended with `outcome` (not an error).
    func countLoad(_ outcome: Outcome) {
        switch outcome {
        case .memory: memoryLoads.increment()
        case .disk: diskLoads.increment()
        case .shared: sharedLoads.increment()
        case .network: networkLoads.increment()
        case .notModified: notModifiedLoads.increment()
        case .staleOnError: staleOnErrorLoads.increment()
        case .error: break
        }
    }

    /// Counts a caller that joined work already in flight.
    func countJoin() { coalescedJoins.increment() }

    /// Counts one retry of a download.
    func countRetry() { retries.increment() }

    /// Counts downloaded body bytes.
    func countDownloaded(bytes: Int) { bytesDownloaded.increment(by: Int64(bytes)) }

    /// Records the transfer gauges.
    func recordTransfers(active: Int, queued: Int) {
        activeTransfers.record(active)
        queuedTransfers.record(queued)
    }

    /// Records the memory cache gauges.
    func recordMemory(cost: Int, count: Int) {
        memoryCost.record(cost)
        memoryCount.record(count)
    }

    /// Records the disk cache size gauge.
    func recordDiskSize(_ bytes: Int) {
        diskSize.record(bytes)
    }

    /// Counts one failed load by the ``ImageError`` case name (`other` for a
    /// foreign error); cancellation is not an outcome and is not counted.
    func countFailure(_ error: any Error) {
        guard !(error is CancellationError) else { return }
        let kind = (error as? ImageError)?.caseName ?? "other"
        // Failures are rare; the factory caches handles by label and dimensions where it can.
        Counter(label: "awi_loads_total", dimensions: [("outcome", Outcome.error.rawValue), ("error_kind", kind)], factory: factory)
            .increment()
    }

    /// Runs a decode, recording its duration and the pixels it produced.
    func timedDecode(_ body: () async throws -> Image) async rethrows -> Image {
        let image = try await timed(decodeTimer, body)
        decodedPixels.increment(by: Int64(image.width) * Int64(image.height))
        return image
    }

    /// Runs `body`, recording its duration in `timer`.
    func timed<T>(_ timer: Metrics.Timer, _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { timer.record(duration: ContinuousClock.now - start) }
        return try await body()
    }

    // MARK: Tracing

    /// Starts a span under `parent` (the current context when `nil`), or
    /// returns `nil` without a tracer.
    func startSpan(_ name: String, parent: ServiceContext?, kind: SpanKind = .internal) -> (any Span)? {
        guard let tracer else { return nil }
        return tracer.startSpan(name, context: parent ?? ServiceContext.current ?? .topLevel, ofKind: kind)
    }

    /// Runs `body` in a span `name`, a child of the current context's span
    /// (the load's); without a tracer, or outside any traced context, just
    /// runs it. An error it throws is recorded on the span; the span's
    /// context is current inside `body`, so its own children nest under it.
    func withChildSpan<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        guard tracer != nil, let parent = ServiceContext.current, let span = startSpan(name, parent: parent) else {
            return try await body()
        }
        defer { span.end() }
        do {
            return try await ServiceContext.withValue(span.context) { try await body() }
        } catch {
            Self.record(error, on: span)
            throw error
        }
    }

    /// Records `error` on `span`. Cancellation is not an error of the span:
    /// it is recorded as a `cancelled` event, and the status stays unset.
    static func record(_ error: any Error, on span: (any Span)?) {
        guard let span else { return }
        guard !(error is CancellationError) else {
            span.addEvent(SpanEvent(name: "cancelled"))
            return
        }
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: (error as? ImageError)?.caseName))
    }
}

extension ImageLoadRequest {
    /// The request identity's short digest, for log lines: it names the load
    /// without the URL (whose query may carry tokens) or any header value.
    var logID: Logger.MetadataValue {
        .string(String(SHA256.hexDigest(keys.resultKey).prefix(12)))
    }
}

extension ImageError {
    /// The case name: the bounded `error_kind` label of `awi_loads_total`
    /// and the status message of a failed span.
    var caseName: String {
        switch self {
        case .invalidURL: "invalidURL"
        case .blockedURL: "blockedURL"
        case .unsupportedScheme: "unsupportedScheme"
        case .destinationNotAllowed: "destinationNotAllowed"
        case .requestRejected: "requestRejected"
        case .responseRejected: "responseRejected"
        case .httpStatus: "httpStatus"
        case .network: "network"
        case .timeout: "timeout"
        case .tooLarge: "tooLarge"
        case .undecodable: "undecodable"
        case .unsupportedFormat: "unsupportedFormat"
        case .invalidImage: "invalidImage"
        case .encodingFailed: "encodingFailed"
        case .cacheMiss: "cacheMiss"
        case .transformFailed: "transformFailed"
        case .diskIO: "diskIO"
        case .sharedCache: "sharedCache"
        case .shutDown: "shutDown"
        }
    }
}

/// Writes a trace context's fields (`traceparent`, ...) into a request's header fields.
struct DataRequestInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout DataRequest) {
        // An instrument's keys are field names (traceparent, baggage); one
        // that is not a token could not be sent, so it is left out.
        guard let name = HTTPField.Name(key) else { return }
        request.headers[name] = value
    }
}
