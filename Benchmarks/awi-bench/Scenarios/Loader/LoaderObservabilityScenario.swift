import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer
import Logging
import Metrics
import Synchronization
import Tracing

/// What logging, metrics and tracing cost a load. Three cases, each against
/// a loader with the default (unbootstrapped) sinks in the same run:
/// - a memory hit through `image(url)` with explicit no-op sinks (a no-op log
///   handler, `NOOPMetricsHandler`, `NoOpTracer`): within 5 %;
/// - start-then-cancel with the same no-op sinks: within 5 %;
/// - a memory hit with a real in-process metrics backend (atomic counters and
///   timer sums) and a tracer that records every span: at most 1.5×.
struct LoaderObservabilityScenario: Scenario {
    let name = "loader-observability"
    let summary = "memory hit and start-cancel with no-op sinks (≤ 1.05×) and with real metrics + tracer (≤ 1.5×)"

    private static let lookups = 10_000
    private static let cancels = 5_000

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        let noOp = "memory hit, no-op sinks"
        rows.append(await context.measureCase(scenario: name, caseName: noOp) {
            try await memoryHit(caseName: noOp, context: context, sinks: .noOp, target: .timeAtMost(1.05))
        })
        let real = "memory hit, metrics backend + tracer"
        rows.append(await context.measureCase(scenario: name, caseName: real) {
            try await memoryHit(caseName: real, context: context, sinks: .real, target: .timeAtMost(1.5))
        })
        let floor = "memory hit + tracer vs plain hit + a bare span"
        rows.append(await context.measureCase(scenario: name, caseName: floor) {
            try await memoryHitOverTracerFloor(caseName: floor, context: context)
        })
        let cancel = "start-then-cancel, no-op sinks"
        rows.append(await context.measureCase(scenario: name, caseName: cancel) {
            try await startCancel(caseName: cancel, context: context)
        })
        return rows
    }

    private enum Sinks { case noOp, real }

    private static func loader(_ sinks: Sinks?) -> (ImageLoader, MemoryCache) {
        let memory = MemoryCache()
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: memory, disk: nil))
        configuration.dataLoader = CurlDataLoader()
        switch sinks {
        case .noOp:
            configuration.logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
            configuration.metricsFactory = NOOPMetricsHandler.instance
            configuration.tracer = NoOpTracer()
        case .real:
            configuration.logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
            configuration.metricsFactory = SummingMetricsFactory()
            configuration.tracer = CountingTracer()
        case nil:
            break
        }
        return (ImageLoader(configuration: configuration), memory)
    }

    private func memoryHit(caseName: String, context: BenchmarkContext, sinks: Sinks, target: Target) async throws -> ResultRow {
        let url = URL(string: "http://127.0.0.1:9/observed-hit.jpg")!
        let image = try Image(width: 64, height: 64, pixelFormat: .rgb8, pixels: [UInt8](repeating: 128, count: 64 * 64 * 3))
        let (plain, plainMemory) = Self.loader(nil)
        let (observed, observedMemory) = Self.loader(sinks)
        await plainMemory.setImage(image, forKey: url.absoluteString)
        await observedMemory.setImage(image, forKey: url.absoluteString)
        for loader in [plain, observed] {
            guard try await loader.response(url).source == .memory else { throw BenchmarkFailure("the loader missed its memory cache") }
        }
        let plan = context.plan(warmup: 2, minIterations: 10, maxIterations: 40, budget: 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                try await Sample.inProcess {
                    for _ in 0..<Self.lookups { blackHole(try await observed.image(url)) }
                }
            },
            baseline: {
                try await Sample.inProcess {
                    for _ in 0..<Self.lookups { blackHole(try await plain.image(url)) }
                }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.lookups), unit: "hit/s", basis: .cpu,
            baseline: "image(url) with the default sinks", target: target
        )
        if let ours = measurement.ours.median(.cpu) {
            row.note = String(format: "%.2f µs per hit (CPU)", ours / Double(Self.lookups) * 1e6)
        }
        return row
    }

    /// The traced memory hit against its floor: a plain hit plus one span
    /// started and ended on the same kind of tracer, in the same loop. The
    /// ratio is what the loader adds to a traced hit beyond the tracer's own
    /// cost (which no loader can avoid while it gives every load a span).
    private func memoryHitOverTracerFloor(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let url = URL(string: "http://127.0.0.1:9/observed-floor.jpg")!
        let image = try Image(width: 64, height: 64, pixelFormat: .rgb8, pixels: [UInt8](repeating: 128, count: 64 * 64 * 3))
        let (plain, plainMemory) = Self.loader(nil)
        let (observed, observedMemory) = Self.loader(.real)
        await plainMemory.setImage(image, forKey: url.absoluteString)
        await observedMemory.setImage(image, forKey: url.absoluteString)
        for loader in [plain, observed] {
            guard try await loader.response(url).source == .memory else { throw BenchmarkFailure("the loader missed its memory cache") }
        }
        let tracer = CountingTracer()
        let plan = context.plan(warmup: 2, minIterations: 10, maxIterations: 40, budget: 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                try await Sample.inProcess {
                    for _ in 0..<Self.lookups { blackHole(try await observed.image(url)) }
                }
            },
            baseline: {
                try await Sample.inProcess {
                    for _ in 0..<Self.lookups {
                        let span = tracer.startSpan("image.load", context: ServiceContext.current ?? .topLevel, ofKind: .client)
                        blackHole(try await plain.image(url))
                        span.end()
                    }
                }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.lookups), unit: "hit/s", basis: .cpu,
            baseline: "plain image(url) + startSpan/end", target: .timeAtMost(1.1)
        )
        if let ours = measurement.ours.median(.cpu), let floor = measurement.baseline.median(.cpu) {
            row.note = String(format: "%.2f µs per traced hit, %.2f µs its floor (CPU)", ours / Double(Self.lookups) * 1e6, floor / Double(Self.lookups) * 1e6)
        }
        return row
    }

    private func startCancel(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let server = try context.server.server()
        server.route("/observed-cancel.jpg", .status(404))
        let url = server.url("/observed-cancel.jpg")
        let (plain, _) = Self.loader(nil)
        let (observed, _) = Self.loader(.noOp)
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 20, budget: 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { await Self.startCancel(observed, url) },
            baseline: { await Self.startCancel(plain, url) }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.cancels), unit: "load/s", basis: .wall,
            baseline: "start-then-cancel with the default sinks", target: .timeAtMost(1.05)
        )
        if let ours = measurement.ours.median(.wall) {
            row.note = String(format: "%.2f µs per start-then-cancel (wall)", ours / Double(Self.cancels) * 1e6)
        }
        return row
    }

    private static func startCancel(_ loader: ImageLoader, _ url: URL) async -> Sample {
        await Sample.inProcess {
            for _ in 0..<cancels {
                let task = Task { try await loader.image(url) }
                task.cancel()
                _ = try? await task.value
            }
        }
    }
}

/// A real in-process metrics backend, as a Prometheus client keeps it: an
/// atomic total per counter, a count and a sum per timer, the last value per
/// recorder.
private final class SummingMetricsFactory: MetricsFactory, Sendable {
    private final class Handler: CounterHandler, RecorderHandler, TimerHandler, Sendable {
        let total = Atomic<Int64>(0)
        let count = Atomic<Int64>(0)
        func increment(by amount: Int64) { total.add(amount, ordering: .relaxed) }
        func reset() { total.store(0, ordering: .relaxed) }
        func record(_ value: Int64) { total.store(value, ordering: .relaxed) }
        func record(_ value: Double) { total.store(Int64(value), ordering: .relaxed) }
        func recordNanoseconds(_ duration: Int64) {
            count.add(1, ordering: .relaxed)
            total.add(duration, ordering: .relaxed)
        }
    }
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Handler() }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Handler() }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Handler() }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// A tracer that starts real spans (an ID each, the parent's trace ID) and
/// counts the ones that end, as an exporter's in-process side would.
private final class CountingTracer: Tracer, Sendable {
    let ended = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> CountingSpan {
        var spanContext = context()
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        spanContext.benchSpanID = id
        return CountingSpan(tracer: self, name: operationName, context: spanContext, start: instant().nanosecondsSinceEpoch)
    }

    func forceFlush() {}
    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let id = context.benchSpanID else { return }
        injector.inject("00-\(String(repeating: "0", count: 16))\(String(id, radix: 16))-\(String(id, radix: 16))-01", forKey: "traceparent", into: &carrier)
    }
}

private enum BenchSpanIDKey: ServiceContextKey {
    typealias Value = UInt64
}

extension ServiceContext {
    fileprivate var benchSpanID: UInt64? {
        get { self[BenchSpanIDKey.self] }
        set { self[BenchSpanIDKey.self] = newValue }
    }
}

private final class CountingSpan: Span, Sendable {
    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
    }
    private let tracer: CountingTracer
    let context: ServiceContext
    private let start: UInt64
    private let state: Mutex<State>

    init(tracer: CountingTracer, name: String, context: ServiceContext, start: UInt64) {
        self.tracer = tracer
        self.context = context
        self.start = start
        state = Mutex(State(name: name))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }
    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }
    var isRecording: Bool { true }
    func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }
    func addEvent(_ event: SpanEvent) {}
    func addLink(_ link: SpanLink) {}
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        blackHole(instant().nanosecondsSinceEpoch &- start)
        tracer.ended.add(1, ordering: .relaxed)
    }
}
