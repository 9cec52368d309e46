import Foundation
import Logging
import Metrics
import Tracing
import AWILocking
import Synchronization

// Test doubles of the *sinks* the application would bootstrap: a log
// handler, a metrics factory and a tracer that keep what they receive in
// memory. They are passed to the loader through its configuration, never
// bootstrapped, so tests running side by side do not share global state.

/// A metrics factory keeping each counter's total, each timer's and
/// recorder's values, by label and sorted dimensions.
final class RecordingMetricsFactory: MetricsFactory, Sendable {
    private let counters = Lock<[String: Int64]>([:])
    private let values = Lock<[String: [Double]]>([:])

    static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        ([label] + dimensions.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }

    /// The total of a counter (0 when never incremented).
    func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        counters.withLock { $0[Self.key(label, dimensions)] ?? 0 }
    }

    /// The values a timer (nanoseconds) or recorder received.
    func recorded(_ label: String, _ dimensions: [(String, String)] = []) -> [Double] {
        values.withLock { $0[Self.key(label, dimensions)] ?? [] }
    }

    /// Every counter key with its total.
    var allCounters: [String: Int64] { counters.withLock { $0 } }

    fileprivate func add(_ key: String, _ amount: Int64) { counters.withLock { $0[key, default: 0] += amount } }
    fileprivate func record(_ key: String, _ value: Double) { values.withLock { $0[key, default: []].append(value) } }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        CounterBox(factory: self, key: Self.key(label, dimensions))
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        RecorderBox(factory: self, key: Self.key(label, dimensions))
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        TimerBox(factory: self, key: Self.key(label, dimensions))
    }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    private final class CounterBox: CounterHandler, Sendable {
        let factory: RecordingMetricsFactory
        let key: String
        init(factory: RecordingMetricsFactory, key: String) { self.factory = factory; self.key = key }
        func increment(by amount: Int64) { factory.add(key, amount) }
        func reset() {}
    }
    private final class RecorderBox: RecorderHandler, Sendable {
        let factory: RecordingMetricsFactory
        let key: String
        init(factory: RecordingMetricsFactory, key: String) { self.factory = factory; self.key = key }
        func record(_ value: Int64) { factory.record(key, Double(value)) }
        func record(_ value: Double) { factory.record(key, value) }
    }
    private final class TimerBox: TimerHandler, Sendable {
        let factory: RecordingMetricsFactory
        let key: String
        init(factory: RecordingMetricsFactory, key: String) { self.factory = factory; self.key = key }
        func recordNanoseconds(_ duration: Int64) { factory.record(key, Double(duration)) }
    }
}

/// A W3C trace-context tracer that keeps its finished spans in memory and
/// injects `traceparent` (`00-<trace id>-<span id>-01`).
final class RecordingTracer: Tracer, Sendable {
    struct Finished: Sendable {
        let name: String
        let traceID: String
        let spanID: String
        let parentID: String?
        let errors: [String]
        let isError: Bool
        /// The names of the events added to the span, in order.
        let events: [String]
    }

    private let finished = Lock<[Finished]>([])
    private let nextID = Atomic<UInt64>(1)

    var spans: [Finished] { finished.withLock { $0 } }

    fileprivate func end(_ span: Finished) { finished.withLock { $0.append(span) } }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RecordingSpan {
        let parent = context()
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let spanID = String(format: "%016llx", id)
        let traceID = parent.testTrace?.traceID ?? String(format: "%032llx", id)
        var spanContext = parent
        spanContext.testTrace = TestTrace(traceID: traceID, spanID: spanID)
        return RecordingSpan(tracer: self, name: operationName, context: spanContext, parentID: parent.testTrace?.spanID)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let trace = context.testTrace else { return }
        injector.inject("00-\(trace.traceID)-\(trace.spanID)-01", forKey: "traceparent", into: &carrier)
    }
}

struct TestTrace: Sendable {
    let traceID: String
    let spanID: String
}

private enum TestTraceKey: ServiceContextKey {
    typealias Value = TestTrace
}

extension ServiceContext {
    var testTrace: TestTrace? {
        get { self[TestTraceKey.self] }
        set { self[TestTraceKey.self] = newValue }
    }
}

final class RecordingSpan: Span, Sendable {
    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var errors: [String] = []
        var events: [String] = []
        var status: SpanStatus?
        var ended = false
    }
    private let tracer: RecordingTracer
    let context: ServiceContext
    private let parentID: String?
    private let state: Lock<State>

    init(tracer: RecordingTracer, name: String, context: ServiceContext, parentID: String?) {
        self.tracer = tracer
        self.context = context
        self.parentID = parentID
        state = Lock(State(name: name))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }
    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }
    var isRecording: Bool { state.withLock { !$0.ended } }
    func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }
    func addEvent(_ event: SpanEvent) { state.withLock { $0.events.append(event.name) } }
    func addLink(_ link: SpanLink) {}
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        state.withLock { $0.errors.append(String(describing: error)) }
    }
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let finished = state.withLock { state -> RecordingTracer.Finished? in
            guard !state.ended else { return nil }
            state.ended = true
            return .init(
                name: state.name, traceID: context.testTrace?.traceID ?? "", spanID: context.testTrace?.spanID ?? "",
                parentID: parentID, errors: state.errors, isError: state.status?.code == .error, events: state.events
            )
        }
        if let finished { tracer.end(finished) }
    }
}
