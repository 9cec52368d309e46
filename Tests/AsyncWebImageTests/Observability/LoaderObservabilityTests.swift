import Foundation
import HTTPTypes
import Logging
import LoopbackServer
import Metrics
import Testing
import Tracing
@testable import AsyncWebImage
import AWILocking
import Synchronization

/// The loader's log lines, counters, timers and spans, seen through sinks
/// passed in its configuration (nothing bootstrapped): a memory hit, a disk
/// hit, a download, a retry and a damaged disk entry, each against the real
/// loopback server and a real disk store.
@Suite("Observability: logs, metrics and spans of a load", .timeLimit(.minutes(1)))
struct LoaderObservabilityTests {
    /// A harness whose loader logs, counts and traces into fresh sinks.
    struct Observed {
        let harness: PipelineHarness
        let logs = RecordingLogHandlerStore()
        let metrics = RecordingMetricsFactory()
        let tracer = RecordingTracer()

        init(tracing: Bool = false) throws {
            let logs = logs, metrics = metrics, tracer = tracer
            harness = try PipelineHarness { configuration in
                configuration.logger = logs.logger()
                configuration.metricsFactory = metrics
                if tracing { configuration.tracer = tracer }
            }
        }

        func loads(_ outcome: String) -> Int64 { metrics.counter("awi_loads_total", [("outcome", outcome)]) }
    }

    /// A secret in the URL's query that must never reach a log line.
    static let secret = "s3cr3t-token-value"

    @Test("a download then a memory hit: outcome counters, bytes, timers, and debug lines with the identity digest only")
    func downloadThenMemoryHit() async throws {
        // Given an image behind a URL whose query carries a token
        let observed = try Observed()
        let png = try fixture("png", "rgb8.png")
        let url = observed.harness.serve("/a.png", png).appending(queryItems: [URLQueryItem(name: "token", value: Self.secret)])

        // When it is loaded twice
        let first = try await observed.harness.loader.response(url, options: .waitStoreCache)
        let second = try await observed.harness.loader.response(url)

        // Then the first came from the network, the second from memory, and the counters say so
        #expect(first.source == .network)
        #expect(second.source == .memory)
        #expect(observed.loads("network") == 1)
        #expect(observed.loads("memory") == 1)
        #expect(observed.loads("disk") == 0)
        #expect(observed.metrics.counter("awi_downloaded_bytes_total") == Int64(png.count))
        #expect(observed.metrics.recorded("awi_download_duration_seconds").count == 1)
        #expect(observed.metrics.recorded("awi_decode_duration_seconds").count == 1)
        #expect(observed.harness.requests("/a.png") == 1)
        // And the debug lines carry one short digest and never the URL or its token
        let downloaded = try #require(observed.logs.lines("downloaded").first)
        #expect(downloaded.level == .debug)
        #expect(downloaded.metadata["awi.bytes"] == String(png.count))
        let id = try #require(downloaded.metadata["awi.id"])
        #expect(id.count == 12)
        #expect(observed.logs.lines("memory hit").first?.metadata["awi.id"] == id)
        for line in observed.logs.lines {
            #expect(!line.message.contains(Self.secret))
            #expect(!line.metadata.values.contains { $0.contains(Self.secret) || $0.contains("127.0.0.1") })
        }
        // And no URL is a label: every counter key is a fixed name with bounded dimensions
        for key in observed.metrics.allCounters.keys { #expect(!key.contains("/a.png") && !key.contains(Self.secret)) }
    }

    @Test("a disk hit after a restart counts outcome=disk and logs a cache hit from disk")
    func diskHit() async throws {
        // Given an image stored on disk by one loader
        let observed = try Observed()
        let url = observed.harness.serve("/d.png", try fixture("png", "rgb8.png"))
        _ = try await observed.harness.loader.response(url, options: .waitStoreCache)
        // When a restarted loader (same disk, empty memory, same sinks) loads it
        let logs = observed.logs, metrics = observed.metrics
        let restarted = observed.harness.restartedLoader { configuration in
            configuration.logger = logs.logger()
            configuration.metricsFactory = metrics
        }
        let response = try await restarted.response(url)
        // Then it came from disk without a second request, and was counted and logged so
        #expect(response.source == .disk)
        #expect(observed.harness.requests("/d.png") == 1)
        #expect(observed.loads("disk") == 1)
        #expect(observed.loads("network") == 1)
        #expect(observed.metrics.recorded("awi_decode_duration_seconds").count == 2)
        #expect(observed.logs.lines("cache hit").contains { $0.metadata["awi.tier"] == "disk" })
    }

    @Test("503 then 200: one retry counted and logged at debug, two requests at the server")
    func retry() async throws {
        // Given a server answering 503 once, then the image
        let observed = try Observed()
        let png = try fixture("png", "rgb8.png")
        let count = Lock(0)
        observed.harness.server.route("/flaky.png") { _ in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            return number == 1 ? .status(503) : .ok(png, contentType: "image/png")
        }
        var context = ImageContext()
        context.retryPolicy = DataRequest.RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        // When it is loaded with retries allowed
        let response = try await observed.harness.loader.response(observed.harness.server.url("/flaky.png"), context: context)
        // Then it loaded on the second attempt, and the retry was counted and
        // logged at debug (the library recovered: nothing for an operator to do)
        #expect(response.image.width > 0)
        #expect(observed.harness.requests("/flaky.png") == 2)
        #expect(observed.metrics.counter("awi_retries_total") == 1)
        let line = try #require(observed.logs.lines("retrying download").first)
        #expect(line.level == .debug)
        #expect(line.metadata["awi.attempt"] == "2")
        #expect(line.metadata["awi.error"] == "httpStatus")
        #expect(observed.loads("network") == 1)
    }

    @Test("a damaged disk entry is condemned with a warning, downloaded again, and counted")
    func damagedEntry() async throws {
        // Given an image on disk whose entry is then overwritten with bytes no decoder reads
        let observed = try Observed()
        let url = observed.harness.serve("/bad.png", try fixture("png", "rgb8.png"))
        _ = try await observed.harness.loader.response(url, options: .waitStoreCache)
        let png = try fixture("png", "rgb8.png")
        var damaged = png.prefix(40)
        damaged.append(Data(repeating: 0xEE, count: 200))
        try await observed.harness.disk.setData(Data(damaged), forKey: url.absoluteString, extendedData: nil)
        // When a restarted loader loads it
        let logs = observed.logs, metrics = observed.metrics
        let restarted = observed.harness.restartedLoader { configuration in
            configuration.logger = logs.logger()
            configuration.metricsFactory = metrics
        }
        let response = try await restarted.response(url)
        // Then the entry was condemned (logged at debug: the loader recovered
        // by downloading again, nothing for an operator to do)
        #expect(response.source == .network)
        #expect(observed.harness.requests("/bad.png") == 2)
        let line = try #require(observed.logs.lines("damaged cache entry removed").first)
        #expect(line.level == .debug)
        #expect(observed.loads("network") == 2)
    }

    @Test("a failed load counts outcome=error with the ImageError case name")
    func errorKind() async throws {
        // Given a server answering 404
        let observed = try Observed()
        observed.harness.server.route("/missing.png", .status(404))
        // When it is loaded
        await #expect(throws: ImageError.httpStatus(404)) {
            try await observed.harness.loader.response(observed.harness.server.url("/missing.png"))
        }
        // Then one error of kind httpStatus was counted
        #expect(observed.metrics.counter("awi_loads_total", [("outcome", "error"), ("error_kind", "httpStatus")]) == 1)
    }

    @Test("a traced load: image.load with cache lookup, download, decode and store children; traceparent reaches the server")
    func spanTree() async throws {
        // Given a loader with a tracer
        let observed = try Observed(tracing: true)
        let url = observed.harness.serve("/t.png", try fixture("png", "rgb8.png"))
        // When an image is loaded
        _ = try await observed.harness.loader.response(url, options: .waitStoreCache)
        // Then the span tree is one load with its stages under it
        let spans = observed.tracer.spans
        let load = try #require(spans.first { $0.name == "image.load" })
        #expect(load.parentID == nil)
        for name in ["image.cache_lookup", "image.download", "image.decode", "image.store"] {
            let child = try #require(spans.first { $0.name == name }, "\(name) missing")
            #expect(child.parentID == load.spanID)
            #expect(child.traceID == load.traceID)
        }
        // And the server received the download span's traceparent
        let download = try #require(spans.first { $0.name == "image.download" })
        let headers = observed.harness.server.statistics("/t.png").requestHeaders
        #expect(headers.count == 1)
        #expect(headers.first?["traceparent"] == "00-\(load.traceID)-\(download.spanID)-01")
    }

    @Test("trace context fields are not part of a request's identity; other fields are")
    func traceFieldsKeepIdentity() {
        let plain = DataRequest(url: URL(string: "https://example.com/a.png")!)
        var traced = plain
        traced.headers[.traceparent] = "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01"
        traced.headers[.tracestate] = "vendor=1"
        var authorized = plain
        authorized.headers[.authorization] = "Bearer x"
        #expect(traced.key == plain.key)
        #expect(authorized.key != plain.key)
    }

    @Test("a failed traced load records the error on image.load and on the download span")
    func spanError() async throws {
        let observed = try Observed(tracing: true)
        observed.harness.server.route("/gone.png", .status(410))
        await #expect(throws: ImageError.httpStatus(410)) {
            try await observed.harness.loader.response(observed.harness.server.url("/gone.png"))
        }
        let spans = observed.tracer.spans
        let load = try #require(spans.first { $0.name == "image.load" })
        #expect(load.isError)
        #expect(load.errors.count == 1)
        #expect(spans.first { $0.name == "image.download" }?.isError == true)
    }
}
