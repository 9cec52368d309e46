import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer

/// 1,000 concurrent `ImageLoader.image(url)` calls of one 2 MP (then 12 MP) JPEG against
/// a single call, each side on a loader with empty caches: the 1,000 must
/// cost one download and one decode, and take at most 1.2× the time of one.
struct LoaderCoalescingScenario: Scenario {
    let name = "loader-coalescing"
    let summary = "1,000 concurrent ImageLoader.image(url) of one URL vs one call: 1 download, 1 decode, time ≤ 1.2×"

    private static let callers = 1_000

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        // Two sizes: the callers' overhead is fixed, so how it compares with
        // one load depends on what one load costs.
        var rows: [ResultRow] = []
        for megapixels in [2.0, 12.0] {
            guard let file = context.corpus.image(.jpeg, .baseline, megapixels: megapixels) else { continue }
            let caseName = "\(Self.callers) × \(file.label)"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(file, caseName: caseName, context: context)
            })
        }
        if rows.isEmpty { throw ScenarioSkipped("no baseline JPEG in the corpus") }
        return rows
    }

    private func measure(_ file: CorpusImage, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let data = try context.corpus.data(of: file)
        let server = try context.server.server()
        let path = "/loader-coalescing/" + file.name
        server.route(path, .ok(data, contentType: "image/jpeg"))
        let url = server.url(path)
        let dataLoader = CurlDataLoader()
        var worst = (downloads: 0, decodes: 0)
        server.resetStatistics()

        let plan = context.plan(warmup: 1, minIterations: 3, maxIterations: 10, budget: 8)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                let counter = DecodeCounter()
                let (loader, _) = LoaderFactory.make(dataLoader: dataLoader, coders: counter.registry)
                let before = server.statistics(path).requests
                let sample = try await Sample.inProcess {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<Self.callers {
                            group.addTask { try await loader.image(url).width }
                        }
                        for try await width in group where width == 0 { throw BenchmarkFailure("a caller got no image") }
                    }
                }
                let downloads = server.statistics(path).requests - before
                worst = (max(worst.downloads, downloads), max(worst.decodes, counter.decodes))
                return sample
            },
            baseline: {
                let (loader, _) = LoaderFactory.make(dataLoader: dataLoader)
                return try await Sample.inProcess { blackHole(try await loader.image(url)) }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "load/s", basis: .wall,
            baseline: "one load", target: .timeAtMost(1.2)
        )
        if worst.downloads != 1 || worst.decodes != 1 { row.passed = false }
        row.note = "per round of \(Self.callers) callers: at most \(worst.downloads) download(s) and \(worst.decodes) decode(s); "
            + "\(file.byteCount / 1000) KB; p50/p99 = wall time of the whole round"
        if let single = measurement.baseline.median(.wall) {
            // The same fan-out with no library code: how much of the ratio
            // the runtime and the 2 cores take by themselves.
            let floor = await TaskFanOutFloor.ratio(callers: Self.callers, work: single, rounds: 5)
            row.note! += String(format: "; runtime floor (%d bare tasks awaiting one %.1f ms job): %.2f× the job", Self.callers, single * 1e3, floor)
            if floor > 0 { row.reference = ReferencePoint(ratio: 1 / floor, what: "\(Self.callers) bare tasks awaiting one job as long as a load (the runtime alone)") }
        }
        return row
    }
}
