import AWIBenchResults
import AsyncWebImage
import Foundation
import AsyncWebImageHEIF

/// Full decode and 256-pixel thumbnails of 12 MP and 2 MP HEIC files with
/// an embedded 512-pixel thumbnail (as iPhones write them) through
/// `HEIFCoder`, against raw libheif calls in the same process: the full
/// decode against libheif's decode of the primary image; the thumbnail
/// against that decode and the same resampler (HEVC has no reduced-size
/// decode, so that is what a caller who ignores the embedded thumbnail
/// does), once with embedded thumbnails used (the default, as libvips's
/// `thumbnail` does) and once with them off.
///
/// The files are encoded once with raw libheif (x265, quality 80, the
/// thumbnail in a 512-pixel box) from the corpus's synthetic photographs
/// and kept beside the corpus. Ratios are on per-thread CPU time; both
/// sides decode with one thread.
struct HEICScenario: Scenario {
    let name = "heic"
    let summary = "HEIFCoder full decode and 256 px thumbnails (12 and 2 MP, embedded 512 px thumbnail) vs raw libheif (full ≥ 0.95×; embedded thumbnail ≥ 5×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        let photos = CorpusGenerator.encodedPhotos(named: { "heic-\($0)-q80-thumb512.heic" }) { rgb, width, height, path in
            try RawHeif.encode(rgb: rgb, width: width, height: height, quality: 80, thumbnailBox: 512, to: path)
        }
        for photo in photos {
            let label = "heic \(photo.label)"
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
            for embedded in [true, false] {
                let caseName = label + " → 256px" + (embedded ? " (embedded thumbnail)" : " (embedded thumbnails off)")
                rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                    try await measureThumbnail(file, label: caseName, embedded: embedded, context: context)
                })
            }
        }
        return rows
    }

    private func measureFull(_ data: Data, label: String, megapixels: Double, context: BenchmarkContext) async throws -> ResultRow {
        let coder = HEIFCoder()
        let options = ImageDecodingOptions()
        let reference = try coder.decode(data, options: options)
        let check = try RawHeif.decode(data)
        guard check.width == reference.width, check.height == reference.height, check.pixels == reference.pixels else {
            throw BenchmarkFailure("HEIFCoder and raw libheif disagree on \(label)")
        }
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: megapixels > 6 ? 15 : 40, budget: megapixels > 6 ? 10 : 5)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try RawHeif.decode(data)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: label, measurement: measurement,
            unitsPerOperation: megapixels, unit: "MP/s", basis: .cpu,
            baseline: "libheif decode (primary)", target: .ratioAtLeast(0.95)
        )
        row.note = "\(data.count / 1024) KB, 8-bit, one thread each"
        return row
    }

    private func measureThumbnail(_ data: Data, label: String, embedded: Bool, context: BenchmarkContext) async throws -> ResultRow {
        let coder = HEIFCoder()
        var options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        options.usesEmbeddedThumbnails = embedded
        let thumbnail = try coder.decode(data, options: options)
        func resampled(_ raw: (pixels: [UInt8], width: Int, height: Int), to target: PixelSize) throws -> Image {
            try Image(width: raw.width, height: raw.height, pixelFormat: .rgb8, pixels: raw.pixels).resampled(to: target)
        }
        let primary = try RawHeif.decode(data)
        let target = options.targetSize(forStored: PixelSize(width: primary.width, height: primary.height), orientation: .up)
            ?? PixelSize(width: primary.width, height: primary.height)
        // Check what each path must equal: libheif's embedded thumbnail, or
        // its primary image, resampled the same way.
        let expected = try resampled(embedded ? RawHeif.decode(data, thumbnail: true) : primary, to: target)
        guard expected.hasSamePixels(as: thumbnail) else {
            throw BenchmarkFailure("thumbnails differ on \(label)")
        }
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 40, budget: 8)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try resampled(RawHeif.decode(data), to: target)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: label, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "libheif primary decode + same resize", target: .ratioAtLeast(embedded ? 5 : 0.95)
        )
        row.note = "\(thumbnail.size) from \(data.count / 1024) KB" + (embedded ? ", decoded from the 512 px thumbnail" : "")
        return row
    }
}
