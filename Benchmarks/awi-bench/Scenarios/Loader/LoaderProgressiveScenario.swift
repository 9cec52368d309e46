import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer

/// The first preview of a ~2 MB progressive JPEG trickled at 1 MB/s through
/// `ImageLoader.events(url, options: .progressiveLoad)`: it must arrive
/// before half of the bytes. The baseline is the same load without
/// `.progressiveLoad` (the first image is the final one).
struct LoaderProgressiveScenario: Scenario {
    let name = "loader-progressive"
    let summary = "first preview through ImageLoader of a ~2 MB progressive JPEG at 1 MB/s: before half the bytes"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let file = try TrickledProgressiveJPEG.file(in: context)
        let caseName = TrickledProgressiveJPEG.caseName(file)
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(file, caseName: caseName, context: context)
        }]
    }

    private func measure(_ file: CorpusImage, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let source = try TrickledProgressiveJPEG(file, prefix: "loader-progressive", context: context)
        let data = source.data
        let url = source.url
        let dataLoader = CurlDataLoader()
        var fractions: [Double] = []
        var previewCounts: [Double] = []

        let plan = context.plan(warmup: 0, minIterations: 1, maxIterations: 3, budget: 6)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                let (loader, _) = LoaderFactory.make(dataLoader: dataLoader)
                let start = ResourceUsage.now()
                var first: Double?
                var received: Int64 = 0
                var previews = 0
                for try await event in loader.events(url, options: .progressiveLoad) {
                    switch event {
                    case .progress(let bytes, _): received = bytes
                    case .preview(let image):
                        blackHole(image)
                        previews += 1
                        if first == nil {
                            first = ResourceUsage.wallSeconds() - start.wall
                            fractions.append(Double(received) / Double(data.count))
                        }
                    case .finished(let response): blackHole(response)
                    }
                }
                previewCounts.append(Double(previews))
                let used = ResourceUsage.now().since(start)
                return Sample(wall: first ?? used.wall, cpu: used.processCPU)
            },
            baseline: {
                let (loader, _) = LoaderFactory.make(dataLoader: dataLoader)
                return try await Sample.inProcess { blackHole(try await loader.image(url)) }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .wall,
            baseline: "final image only", target: .condition("first preview < 50% of bytes")
        )
        row.throughput = nil
        row.baselineThroughput = nil
        let fraction = Statistics(fractions)?.median
        row.passed = fraction.map { $0 < 0.5 } ?? false
        row.note = "p50/p99 = time to the first preview; it came at "
            + (fraction.map { String(format: "%.0f%%", $0 * 100) } ?? "-") + " of the bytes (progress seen by the consumer)"
            + "; \(Int(Statistics(previewCounts)?.median ?? 0)) previews per load (100 ms preview interval)"
        return row
    }
}
