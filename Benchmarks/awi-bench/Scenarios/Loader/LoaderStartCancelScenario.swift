import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer

/// What a load that is cancelled right after it starts costs: a `Task`
/// calling `image(url)` on an uncached URL, cancelled at once, awaited. The
/// baseline is the same `Task` around an empty body, so the ratio shows
/// what the loader adds. Target: under 5 µs per start-then-cancel.
struct LoaderStartCancelScenario: Scenario {
    let name = "start-cancel"
    let summary = "start a load and cancel it at once: cost per load (target < 5 µs), and no request sent"

    private static let loads = 10_000

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let caseName = "\(Self.loads) loads, cancelled at once"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(caseName: caseName, context: context)
        }]
    }

    private func measure(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let server = try context.server.server()
        server.route("/start-cancel.jpg", .status(404))
        let url = server.url("/start-cancel.jpg")
        let (loader, _) = LoaderFactory.make(dataLoader: CurlDataLoader())
        server.resetStatistics()

        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 20, budget: 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                await Sample.inProcess {
                    for _ in 0..<Self.loads {
                        let task = Task { try await loader.image(url) }
                        task.cancel()
                        _ = try? await task.value
                    }
                }
            },
            baseline: {
                await Sample.inProcess {
                    for _ in 0..<Self.loads {
                        let task = Task { try Task.checkCancellation() }
                        task.cancel()
                        _ = try? await task.value
                    }
                }
            }
        )
        // Let any transfer that did start reach the server before counting.
        try await Task.sleep(for: .milliseconds(200))
        let requests = server.statistics("/start-cancel.jpg").requests
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.loads), unit: "load/s", basis: .wall,
            baseline: "empty Task, cancelled", target: .condition("< 5 µs per load")
        )
        if let ours = measurement.ours.median(.wall) {
            let perLoad = ours / Double(Self.loads)
            row.passed = perLoad < 5e-6
            row.note = String(format: "%.2f µs per start-then-cancel (wall); ", perLoad * 1e6)
                + "server saw \(requests) request(s) for \(measurement.ours.count * Self.loads) cancelled loads; "
                + "tasks left: \(loader.activeLoadCount)"
        }
        return row
    }
}
