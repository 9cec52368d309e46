import AWIBenchResults
import AsyncWebImage
import CSpng
import CTurboJPEG
import Foundation

/// Full-size decode through `JPEGCoder` / `PNGCoder` against the same file
/// decoded by raw `tjDecompress2` / `spng_decode_image` into the same pixel
/// layout, each side allocating its output as a decoder must.
///
/// The ratio is on per-thread CPU time: a decode is single-threaded, and CPU
/// time is not inflated when another process takes the core.
struct DecodeFullScenario: Scenario {
    let name = "decode-full"
    let summary = "JPEGCoder/PNGCoder full decode vs raw tjDecompress2/spng_decode_image (target ≥ 0.95×)"

    /// The cases: format, variant, megapixels. The 12 and 2 MP baseline JPEG
    /// and plain PNG are the issue's; the progressive/interlaced 2 MP ones
    /// show the cost of those encodings.
    private let cases: [(ImageFormat, CorpusImage.Variant, Double)] = [
        (.jpeg, .baseline, 12), (.jpeg, .baseline, 2), (.jpeg, .progressive, 2),
        (.png, .plain, 12), (.png, .plain, 2), (.png, .interlaced, 2),
    ]

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        var seen = Set<String>()
        for (format, variant, megapixels) in cases {
            guard let image = context.corpus.image(format, variant, megapixels: megapixels), seen.insert(image.path).inserted else { continue }
            rows.append(await context.measureCase(scenario: name, caseName: image.label) {
                try await measure(image, context: context)
            })
        }
        return rows
    }

    private func measure(_ file: CorpusImage, context: BenchmarkContext) async throws -> ResultRow {
        let data = try context.corpus.data(of: file)
        let options = ImageDecodingOptions()
        // Budgets by size: a 12 MP decode takes ~0.1–0.3 s, so fewer rounds.
        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: file.megapixels > 6 ? 25 : 80, budget: file.megapixels > 6 ? 8 : 4)

        let baselineName: String
        let ours: () throws -> Void
        let baseline: () throws -> Void
        switch file.format {
        case .jpeg:
            let coder = JPEGCoder()
            let reference = try coder.decode(data, options: options)
            let layout = try Self.turboJPEGFormat(for: reference.pixelFormat)
            let decompressor = try RawTurboJPEG.Decompressor()
            let check = try decompressor.decode(data, pixelFormat: layout)
            guard check.width == reference.width, check.height == reference.height else {
                throw BenchmarkFailure("JPEGCoder decoded \(reference.size), tjDecompress2 \(check.width)×\(check.height)")
            }
            baselineName = "tjDecompress2"
            ours = { blackHole(try coder.decode(data, options: options)) }
            baseline = { blackHole(try decompressor.decode(data, pixelFormat: layout)) }
        case .png:
            let coder = PNGCoder()
            let reference = try coder.decode(data, options: options)
            let layout = try Self.spngFormat(for: reference.pixelFormat)
            let check = try RawSpng.decode(data, format: layout)
            guard check.count == reference.width * reference.height * reference.pixelFormat.bytesPerPixel else {
                throw BenchmarkFailure("PNGCoder decoded \(reference.size) \(reference.pixelFormat), spng \(check.count) bytes")
            }
            baselineName = "spng_decode_image"
            ours = { blackHole(try coder.decode(data, options: options)) }
            baseline = { blackHole(try RawSpng.decode(data, format: layout)) }
        default:
            throw BenchmarkFailure("no decoder for \(file.format)")
        }

        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread(ours) },
            baseline: { try Sample.onThread(baseline) }
        )
        var row = ResultRow(
            scenario: name, caseName: file.label, measurement: measurement,
            unitsPerOperation: file.megapixels, unit: "MP/s", basis: .cpu,
            baseline: baselineName, target: .ratioAtLeast(file.format == .png ? 1.3 : 0.95)
        )
        if let wallOurs = measurement.ours.median(.wall), let wallBase = measurement.baseline.median(.wall) {
            row.note = "\(file.name), \(file.byteCount / 1024) KB; wall-time ratio \(Format.ratio(wallBase / wallOurs))"
        }
        return row
    }

    /// The TurboJPEG layout that matches the coder's output, so both sides
    /// write the same bytes.
    static func turboJPEGFormat(for format: PixelFormat) throws -> TJPF {
        switch format {
        case .rgb8: TJPF_RGB
        case .rgba8: TJPF_RGBA
        case .gray8: TJPF_GRAY
        case .grayAlpha8: throw BenchmarkFailure("TurboJPEG has no gray+alpha layout")
        }
    }

    /// The libspng output format that matches the coder's output.
    static func spngFormat(for format: PixelFormat) throws -> spng_format {
        switch format {
        case .rgb8: SPNG_FMT_RGB8
        case .rgba8: SPNG_FMT_RGBA8
        case .gray8: SPNG_FMT_G8
        case .grayAlpha8: SPNG_FMT_GA8
        }
    }
}
