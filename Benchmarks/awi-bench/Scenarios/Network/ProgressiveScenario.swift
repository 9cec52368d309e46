import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer

/// A progressive JPEG of about 2 MB trickled by the server at 1 MB/s: how
/// soon the first preview appears when `JPEGCoder`'s progressive decoder is
/// fed the accumulated bytes of each chunk the coalescer delivers, and at
/// what fraction of the bytes. The baseline is the same download without
/// progressive decoding: the first image is the final one, after the last
/// byte and a full decode.
struct ProgressiveScenario: Scenario {
    let name = "progressive"
    let summary = "first preview of a ~2 MB progressive JPEG trickled at 1 MB/s vs waiting for the full image"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let file = try TrickledProgressiveJPEG.file(in: context)
        let caseName = TrickledProgressiveJPEG.caseName(file)
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(file, caseName: caseName, context: context)
        }]
    }

    private struct Run {
        var firstPreview: Double?
        var fraction: Double?
        var previews = 0
        var final: Double = 0
    }

    private func measure(_ file: CorpusImage, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let source = try TrickledProgressiveJPEG(file, prefix: "progressive", context: context)
        let data = source.data
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: source.url)
        let coder = JPEGCoder()
        var runs: [Run] = []
        var baselineRuns: [Double] = []

        // Each round takes ~2 s of trickling per side: few rounds.
        let plan = context.plan(warmup: 0, minIterations: 1, maxIterations: 3, budget: 6)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                let start = ResourceUsage.now()
                var run = Run()
                var decoder = coder.makeProgressiveDecoder(options: .init())
                for try await event in coalescer.download(request) {
                    switch event {
                    case .chunk(_, let accumulated):
                        if decoder != nil, let preview = try decoder?.preview(for: accumulated) {
                            blackHole(preview)
                            run.previews += 1
                            if run.firstPreview == nil {
                                run.firstPreview = ResourceUsage.wallSeconds() - start.wall
                                run.fraction = Double(accumulated.count) / Double(data.count)
                            }
                        }
                    case .completed(let body):
                        blackHole(try coder.decode(body, options: .init()))
                    default:
                        break
                    }
                }
                let used = ResourceUsage.now().since(start)
                run.final = used.wall
                runs.append(run)
                return Sample(wall: run.firstPreview ?? used.wall, cpu: used.processCPU)
            },
            baseline: {
                let start = ResourceUsage.now()
                for try await event in coalescer.download(request) {
                    if case .completed(let body) = event { blackHole(try coder.decode(body, options: .init())) }
                }
                let used = ResourceUsage.now().since(start)
                baselineRuns.append(used.wall)
                return Sample(wall: used.wall, cpu: used.processCPU)
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .wall,
            baseline: "full image only", target: nil
        )
        row.throughput = nil
        row.baselineThroughput = nil
        let fractions = runs.compactMap(\.fraction)
        let fraction = Statistics(fractions)?.median
        let missing = runs.filter { $0.firstPreview == nil }.count
        row.note = "p50/p99 = time to the first preview; it came at "
            + (fraction.map { String(format: "%.0f%%", $0 * 100) } ?? "-") + " of the bytes"
            + "; \(Int(Statistics(runs.map { Double($0.previews) })?.median ?? 0)) previews per download"
            + "; final image after \(Format.seconds(Statistics(runs.map(\.final))?.median)) (baseline \(Format.seconds(Statistics(baselineRuns)?.median)))"
            + (missing > 0 ? "; \(missing) downloads gave no preview" : "")
        return row
    }
}
