import AWIBenchResults
import AsyncWebImage
import CSpng
import Foundation

/// A 256-pixel thumbnail of a PNG through `PNGCoder` with
/// `thumbnailPixelSize`, against the raw limit of the library it wraps:
/// libspng's own `spng_decode_image` of the whole file (no resample at all).
///
/// PNG has no reduced-resolution decode, so every thumbnail must inflate and
/// unfilter every row; beating a bare full decode is the bar.
struct PNGThumbnailScenario: Scenario {
    let name = "png-thumbnail"
    let summary = "256 px PNG thumbnail via PNGCoder vs raw spng_decode_image of the whole file (target ≥ 1.3×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        var seen = Set<String>()
        for (variant, megapixels) in [(CorpusImage.Variant.plain, 12.0), (.plain, 2), (.interlaced, 2)] {
            guard let file = context.corpus.image(.png, variant, megapixels: megapixels), seen.insert(file.path).inserted else { continue }
            rows.append(await context.measureCase(scenario: name, caseName: file.label + " → 256px") {
                try await measure(file, context: context)
            })
        }
        return rows
    }

    private func measure(_ file: CorpusImage, context: BenchmarkContext) async throws -> ResultRow {
        let data = try context.corpus.data(of: file)
        let coder = PNGCoder()
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let full = try coder.decode(data, options: ImageDecodingOptions())
        let layout = try DecodeFullScenario.spngFormat(for: full.pixelFormat)
        let thumbnail = try coder.decode(data, options: options)
        guard max(thumbnail.width, thumbnail.height) == 256 else {
            throw BenchmarkFailure("thumbnail is \(thumbnail.size), expected 256 px on its long side")
        }
        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: file.megapixels > 6 ? 25 : 80, budget: file.megapixels > 6 ? 8 : 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try RawSpng.decode(data, format: layout)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: file.label + " → 256px", measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "spng_decode_image", target: .ratioAtLeast(1.3)
        )
        row.note = "\(file.name), \(file.byteCount / 1024) KB → \(thumbnail.width)×\(thumbnail.height)"
        return row
    }
}
