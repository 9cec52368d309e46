import AWIBenchResults
import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import LoopbackServer

/// From the last byte of a ~2 MB progressive JPEG (trickled at 1 MB/s,
/// previews on, no interval between preview decodes, so one is in flight
/// when the last byte comes) to the final image through
/// `ImageLoader.events(url, options: .progressiveLoad)`. The baseline is a
/// standalone full decode of the same file: the final image must not wait
/// for a preview, so the two should be about equal.
struct LoaderFinalLatencyScenario: Scenario {
    let name = "loader-final-latency"
    let summary = "last byte → final image of a ~2 MB progressive JPEG with previews on, vs a standalone decode"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let file = try TrickledProgressiveJPEG.file(in: context)
        let caseName = TrickledProgressiveJPEG.caseName(file)
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(file, caseName: caseName, context: context)
        }]
    }

    private func measure(_ file: CorpusImage, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let source = try TrickledProgressiveJPEG(file, prefix: "loader-final-latency", context: context)
        let data = source.data
        let url = source.url
        let dataLoader = CurlDataLoader()
        var previewCounts: [Double] = []

        let plan = context.plan(warmup: 0, minIterations: 2, maxIterations: 5, budget: 12)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                let (loader, _) = LoaderFactory.make(dataLoader: dataLoader, previewInterval: .zero)
                var lastByte: Double?
                var final: Double?
                var previews = 0
                let start = ResourceUsage.now()
                for try await event in loader.events(url, options: .progressiveLoad) {
                    switch event {
                    case .progress(let bytes, _) where bytes == Int64(data.count): lastByte = ResourceUsage.wallSeconds()
                    case .progress: break
                    case .preview(let image):
                        blackHole(image)
                        previews += 1
                    case .finished(let response):
                        blackHole(response)
                        final = ResourceUsage.wallSeconds()
                    }
                }
                previewCounts.append(Double(previews))
                let used = ResourceUsage.now().since(start)
                guard let lastByte, let final else { throw BenchmarkFailure("the load ended without its last byte or final image") }
                return Sample(wall: final - lastByte, cpu: used.processCPU)
            },
            baseline: {
                Sample.onThread { blackHole(try? ImageCoderRegistry.allFormats.decode(data)) }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .wall,
            baseline: "standalone decode", target: .timeAtMost(1.1)
        )
        row.throughput = nil
        row.baselineThroughput = nil
        row.note = "p50/p99 = last byte (progress seen by the consumer) → final image; "
            + "\(Int(Statistics(previewCounts)?.median ?? 0)) previews per load (no preview interval)"
        return row
    }
}
