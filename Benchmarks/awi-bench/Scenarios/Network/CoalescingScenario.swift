import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer
import Synchronization

/// 1,000 concurrent requests of one URL through `DownloadCoalescer`: the
/// server must count exactly 1 request and every subscriber must get the
/// whole body. The baseline sends the same 1,000 requests straight to
/// `CurlDataLoader` (no coalescing): 1,000 upstream requests.
///
/// "Concurrent" is made exact with a gate: the server holds the coalesced
/// response until all 1,000 subscribers have joined (bounded at 10 s), so the
/// count measures coalescing, not how fast 1,000 tasks happen to start.
struct CoalescingScenario: Scenario {
    let name = "coalescing"
    let summary = "1,000 concurrent requests of one URL via DownloadCoalescer: server must count 1 request"

    private static let subscribers = 1_000

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let caseName = "\(Self.subscribers) × one URL"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(caseName: caseName, context: context)
        }]
    }

    private func measure(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        guard let file = context.corpus.image(.jpeg, .baseline, megapixels: 0.3) else { throw ScenarioSkipped("no baseline JPEG in the corpus") }
        let body = try context.corpus.data(of: file)
        let server = try context.server.server()
        let gate = Mutex(false)
        server.route("/coalesce/gated.jpg") { _ in
            // Hold the head until every subscriber has joined (at most 10 s).
            let deadline = ResourceUsage.wallSeconds() + 10
            while !gate.withLock({ $0 }) && ResourceUsage.wallSeconds() < deadline { usleep(1_000) }
            return .ok(body, contentType: "image/jpeg")
        }
        server.route("/coalesce/direct.jpg", .ok(body, contentType: "image/jpeg"))
        let loader = CurlDataLoader()
        let coalescer = DownloadCoalescer(loader: loader)
        let request = DataRequest(url: server.url("/coalesce/gated.jpg"))
        server.resetStatistics()

        // Ours: 1,000 subscribers, gate opened once all have joined.
        let ours = try await Sample.inProcess {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<Self.subscribers {
                    group.addTask {
                        for try await event in coalescer.download(request) {
                            if case .completed(let data) = event { return data.count }
                        }
                        return -1
                    }
                }
                let deadline = ResourceUsage.wallSeconds() + 10
                while await coalescer.subscriberCount(for: request) < Self.subscribers, ResourceUsage.wallSeconds() < deadline {
                    try await Task.sleep(for: .milliseconds(1))
                }
                gate.withLock { $0 = true }
                var wrong = 0
                for try await count in group where count != body.count { wrong += 1 }
                if wrong > 0 { throw BenchmarkFailure("\(wrong) subscribers got a wrong body") }
            }
        }
        context.progress.update(fraction: 0.5)
        let upstream = server.statistics("/coalesce/gated.jpg").requests
        let started = await coalescer.transfersStarted

        // Baseline: the same 1,000 requests, each its own transfer.
        let directURL = server.url("/coalesce/direct.jpg")
        let baseline = try await Sample.inProcess {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<Self.subscribers {
                    group.addTask {
                        var received = 0
                        for try await event in loader.loadData(for: DataRequest(url: directURL)) {
                            if case .chunk(let data) = event { received += data.count }
                        }
                        return received
                    }
                }
                for try await count in group where count != body.count { throw BenchmarkFailure("a direct request got \(count) bytes") }
            }
        }
        let directUpstream = server.statistics("/coalesce/direct.jpg").requests

        var measurement = InterleavedMeasurement()
        measurement.ours.append(ours)
        measurement.baseline.append(baseline)
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.subscribers), unit: "req/s", basis: .wall,
            baseline: "1,000 direct loads", target: nil
        )
        row.target = "server counts 1"
        row.passed = upstream == 1
        row.note = "server counted \(upstream) request\(upstream == 1 ? "" : "s") for \(Self.subscribers) subscribers "
            + "(\(started) transfer\(started == 1 ? "" : "s") started); without coalescing it counted \(directUpstream); "
            + "\(file.name), \(body.count / 1024) KB; p50 = time until all completed, gate wait included"
        return row
    }
}
