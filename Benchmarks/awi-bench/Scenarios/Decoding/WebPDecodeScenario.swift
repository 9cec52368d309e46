import AWIBenchResults
import AsyncWebImage
import CTurboJPEG
import Foundation
import AsyncWebImageWebP

/// `WebPCoder` full decode and 256 px thumbnail against raw libwebp calls
/// (`WebPDecode` into a fresh buffer of the same layout; for the thumbnail,
/// the same scaled decode to the same size), in the same process, interleaved.
///
/// The WebP files are made at the start of the run from the corpus's 12 and
/// 2 MP baseline JPEGs, decoded by raw TurboJPEG and encoded by raw libwebp
/// (`WebPEncodeRGB`, quality 80), so the library under test makes none of them.
struct WebPDecodeScenario: Scenario {
    let name = "webp-decode"
    let summary = "WebPCoder full decode and 256 px thumbnail vs raw libwebp WebPDecode (target ≥ 0.95×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        for megapixels in [12.0, 2.0] {
            guard let jpeg = context.corpus.image(.jpeg, .baseline, megapixels: megapixels) else { continue }
            let source = try RawTurboJPEG.Decompressor().decode(try context.corpus.data(of: jpeg), pixelFormat: TJPF_RGB)
            let webp = try RawWebP.encode(rgb: source.pixels, width: source.width, height: source.height, quality: 80)
            let label = "webp \(jpeg.label.split(separator: " ").last.map(String.init) ?? "")"
            for thumbnail in [false, true] {
                let caseName = label + (thumbnail ? " → 256px" : "")
                rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                    try await measure(webp, caseName: caseName, megapixels: megapixels, thumbnail: thumbnail, context: context)
                })
            }
        }
        return rows
    }

    private func measure(_ webp: Data, caseName: String, megapixels: Double, thumbnail: Bool, context: BenchmarkContext) async throws -> ResultRow {
        var options = thumbnail ? ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256)) : ImageDecodingOptions()
        // The baseline is libwebp's own scaled decode to the target: the
        // coder's `.area` route is that decode. The default Lanczos route
        // decodes at twice the target and filters (thumbnail-quality measures it).
        options.thumbnailFilter = .area
        let coder = WebPCoder()
        let reference = try coder.decode(webp, options: options)
        let alpha = reference.pixelFormat == .rgba8
        let check = try RawWebP.decode(webp, width: reference.width, height: reference.height, alpha: alpha)
        guard check == reference.pixels else {
            throw BenchmarkFailure("WebPCoder and raw libwebp disagree on \(caseName)")
        }
        let big = megapixels > 6 && !thumbnail
        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: big ? 25 : 80, budget: big ? 8 : 4)
        let (width, height) = (reference.width, reference.height)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(webp, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try RawWebP.decode(webp, width: width, height: height, alpha: alpha)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: megapixels, unit: "MP/s", basis: .cpu,
            baseline: thumbnail ? "WebPDecode scaled" : "WebPDecode", target: .ratioAtLeast(0.95)
        )
        if let wallOurs = measurement.ours.median(.wall), let wallBase = measurement.baseline.median(.wall) {
            row.note = "\(webp.count / 1024) KB lossy q80, \(width)×\(height) out; wall-time ratio \(Format.ratio(wallBase / wallOurs))"
        }
        return row
    }
}
