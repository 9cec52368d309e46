import AWIBenchResults
import AsyncWebImage
import Foundation

/// 2,000 distinct decoded images pass through a `MemoryCache` with a 128 MiB
/// cost limit (1.8 GB of pixels in all): the resident set must stay within
/// the limit + 64 MiB above where it started, i.e. evicted pixels are really
/// freed (no leak, no reference kept by the weak-recovery table, no heap
/// fragmentation that keeps freed pages resident).
struct CacheRSSScenario: Scenario {
    let name = "cache-rss"
    let summary = "2,000 distinct images through MemoryCache: RSS growth within cost limit + 64 MiB"

    private static let imageCount = 2_000
    private static let costLimit = 128 << 20
    private static let slack = 64 << 20

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard let file = context.corpus.image(.jpeg, .baseline, megapixels: 0.3) else {
            throw ScenarioSkipped("no baseline JPEG in the corpus")
        }
        let caseName = "\(Self.imageCount) × \(file.label), limit 128 MiB"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(file, caseName: caseName, context: context)
        }]
    }

    private func measure(_ file: CorpusImage, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let data = try context.corpus.data(of: file)
        let coder = JPEGCoder()
        let cache = MemoryCache(configuration: .init(costLimit: Self.costLimit))
        // Warm the decoder's own allocations before taking the starting RSS.
        blackHole(try coder.decode(data, options: .init()))
        ResourceUsage.resetPeakRSS()
        guard let startRSS = ResourceUsage.currentRSSBytes() else { throw BenchmarkFailure("no /proc/self/status: cannot read RSS") }

        var highestSampled = startRSS
        var setLatencies: [Double] = []
        var totalPixels = 0
        let start = ResourceUsage.now()
        let deadline = ResourceUsage.wallSeconds() + 60 * context.options.durationScale
        var inserted = 0
        for index in 0..<Self.imageCount {
            // A fresh decode each time: distinct pixel buffers, allocated the
            // way the loader allocates them.
            let image = try coder.decode(data, options: .init())
            totalPixels += image.cost
            let begin = ResourceUsage.wallSeconds()
            await cache.setImage(image, forKey: "https://images.example.com/\(index).jpg")
            setLatencies.append(ResourceUsage.wallSeconds() - begin)
            inserted += 1
            if index % 25 == 0 {
                highestSampled = max(highestSampled, ResourceUsage.currentRSSBytes() ?? 0)
                context.progress.update(fraction: Double(index) / Double(Self.imageCount))
                if ResourceUsage.wallSeconds() > deadline { break }
            }
        }
        let used = ResourceUsage.now().since(start)
        let peak = max(highestSampled, ResourceUsage.peakRSSBytes() ?? 0)
        let statistics = await cache.statistics
        let growth = peak - startRSS
        let allowed = Self.costLimit + Self.slack

        var row = ResultRow(scenario: name, caseName: caseName)
        row.throughput = Double(inserted) / used.wall
        row.unit = "img/s"
        let latency = Statistics(setLatencies)
        row.p50 = latency?.median
        row.p99 = latency?.p99
        row.cpuSeconds = used.processCPU / Double(inserted)
        row.peakRSS = peak
        row.baseline = "RSS before \(Format.bytes(startRSS))"
        row.target = "growth ≤ \(Format.bytes(allowed))"
        row.passed = inserted == Self.imageCount && growth <= allowed
        row.iterations = inserted
        row.note = "RSS grew \(Format.bytes(growth)) (peak \(Format.bytes(peak))) while \(Format.bytes(totalPixels)) of pixels passed; "
            + "cache holds \(statistics.count) images, \(Format.bytes(statistics.totalCost)); \(statistics.evictions) evictions; "
            + "p50/p99 are setImage latencies; throughput includes the decode"
            + (inserted < Self.imageCount ? "; stopped at the time limit after \(inserted)" : "")
        return row
    }
}
