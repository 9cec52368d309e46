import AWIBenchResults
import AsyncWebImage
import Foundation
import AsyncWebImageAVIF

/// Full decode and a 256-pixel thumbnail of 12 MP and 2 MP AVIF files
/// through `AVIFCoder`, against raw libavif calls in the same process
/// (parse, decode, `avifImageYUVToRGB` into a new buffer; for the
/// thumbnail, then the same resampler to the same size: AV1 has no
/// reduced-size decode, so that is what any caller does).
///
/// The files are encoded once with raw libavif (aom, speed 10, quantizer
/// 24, 4:2:0) from the corpus's synthetic photographs and kept beside the
/// corpus. Ratios are on per-thread CPU time; both sides decode with one
/// thread.
struct AVIFScenario: Scenario {
    let name = "avif"
    let summary = "AVIFCoder full decode and 256 px thumbnail (12 and 2 MP) vs raw libavif (target ≥ 0.95×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        let photos = CorpusGenerator.encodedPhotos(named: { "avif-\($0)-q24-s10.avif" }) { rgb, width, height, path in
            try RawAvif.encode(rgb: rgb, width: width, height: height, quantizer: 24, speed: 10).write(to: URL(fileURLWithPath: path))
        }
        for photo in photos {
            let label = "avif \(photo.label)"
            let file: Data
            switch photo.file {
            case .success(let data): file = data
            case .failure(let error):
                rows.append(await context.measureCase(scenario: name, caseName: label) { throw error })
                continue
            }
            rows.append(await context.measureCase(scenario: name, caseName: label) {
                try await measureFull(file, label: label, megapixels: photo.megapixels, context: context)
            })
            rows.append(await context.measureCase(scenario: name, caseName: label + " → 256px") {
                try await measureThumbnail(file, label: label + " → 256px", context: context)
            })
        }
        return rows
    }

    private func measureFull(_ data: Data, label: String, megapixels: Double, context: BenchmarkContext) async throws -> ResultRow {
        let coder = AVIFCoder()
        let options = ImageDecodingOptions()
        let reference = try coder.decode(data, options: options)
        let check = try RawAvif.decode(data, alpha: false)
        guard check.width == reference.width, check.height == reference.height, check.pixels == reference.pixels else {
            throw BenchmarkFailure("AVIFCoder and raw libavif disagree on \(label)")
        }
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: megapixels > 6 ? 20 : 60, budget: megapixels > 6 ? 8 : 4)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try RawAvif.decode(data, alpha: false)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: label, measurement: measurement,
            unitsPerOperation: megapixels, unit: "MP/s", basis: .cpu,
            baseline: "libavif parse+decode+YUVToRGB", target: .ratioAtLeast(0.95)
        )
        row.note = "\(data.count / 1024) KB, 8-bit 4:2:0, one thread each"
        return row
    }

    private func measureThumbnail(_ data: Data, label: String, context: BenchmarkContext) async throws -> ResultRow {
        let coder = AVIFCoder()
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let thumbnail = try coder.decode(data, options: options)
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 40, budget: 6)
        func baselineThumbnail() throws -> Image {
            let raw = try RawAvif.decode(data, alpha: false)
            let image = try Image(width: raw.width, height: raw.height, pixelFormat: .rgb8, pixels: raw.pixels)
            let target = options.targetSize(forStored: image.size, orientation: .up) ?? image.size
            return image.resampled(to: target)
        }
        guard try baselineThumbnail().hasSamePixels(as: thumbnail) else {
            throw BenchmarkFailure("thumbnails differ on \(label)")
        }
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try baselineThumbnail()) } }
        )
        var row = ResultRow(
            scenario: name, caseName: label, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "libavif decode + same resize", target: .ratioAtLeast(0.95)
        )
        row.note = "\(thumbnail.size) from \(data.count / 1024) KB"
        return row
    }
}
