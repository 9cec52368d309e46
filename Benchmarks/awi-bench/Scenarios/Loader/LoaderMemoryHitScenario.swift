import AWIBenchResults
import AsyncWebImage
import Foundation

/// A memory hit through `ImageLoader.image(url)` against a direct
/// `MemoryCache.image(forKey:)` of the same key: the loader's fast path
/// (request resolution, key, one actor hop) may cost at most 2×.
struct LoaderMemoryHitScenario: Scenario {
    let name = "loader-memory-hit"
    let summary = "ImageLoader.image(url) memory hit vs MemoryCache lookup: ≤ 2×"

    private static let lookups = 10_000

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let caseName = "\(Self.lookups) hits, 1 task"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(caseName: caseName, context: context)
        }]
    }

    private func measure(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let (loader, memory) = LoaderFactory.make(dataLoader: CurlDataLoader())
        let url = URL(string: "http://127.0.0.1:9/memory-hit.jpg")!
        let image = try Image(width: 64, height: 64, pixelFormat: .rgb8, pixels: [UInt8](repeating: 128, count: 64 * 64 * 3))
        await memory.setImage(image, forKey: url.absoluteString)
        guard try await loader.response(url).source == .memory else { throw BenchmarkFailure("the loader missed its memory cache") }

        let plan = context.plan(warmup: 2, minIterations: 10, maxIterations: 40, budget: 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                try await Sample.inProcess {
                    for _ in 0..<Self.lookups { blackHole(try await loader.image(url)) }
                }
            },
            baseline: {
                await Sample.inProcess {
                    let key = url.absoluteString
                    for _ in 0..<Self.lookups { blackHole(await memory.image(forKey: key)) }
                }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.lookups), unit: "hit/s", basis: .cpu,
            baseline: "MemoryCache.image(forKey:)", target: .timeAtMost(2)
        )
        if let ours = measurement.ours.median(.cpu) {
            row.note = String(format: "%.2f µs per hit through the loader (CPU)", ours / Double(Self.lookups) * 1e6)
        }
        return row
    }
}
