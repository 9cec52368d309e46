import AWIBenchResults
import AsyncWebImage
import Foundation

/// A 256-pixel thumbnail of a 12 MP JPEG through `thumbnailPixelSize`
/// (TurboJPEG DCT-domain scaling, then an resample to the exact size)
/// against what a user without it would do: decode the full image with the
/// same coder, then resize it with the same resampler to the same size.
struct ThumbnailScenario: Scenario {
    let name = "thumbnail"
    let summary = "256 px thumbnail of a 12 MP JPEG via thumbnailPixelSize vs full decode then resize (target ≥ 4×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        var seen = Set<String>()
        for variant in [CorpusImage.Variant.baseline, .progressive] {
            guard let file = context.corpus.image(.jpeg, variant, megapixels: 12), seen.insert(file.path).inserted else { continue }
            rows.append(await context.measureCase(scenario: name, caseName: file.label + " → 256px") {
                try await measure(file, context: context)
            })
        }
        return rows
    }

    private func measure(_ file: CorpusImage, context: BenchmarkContext) async throws -> ResultRow {
        let data = try context.corpus.data(of: file)
        let coder = JPEGCoder()
        let thumbnailOptions = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let fullOptions = ImageDecodingOptions()

        // Both sides must produce the same size, or the comparison is void.
        let thumbnail = try coder.decode(data, options: thumbnailOptions)
        let full = try coder.decode(data, options: fullOptions)
        let target = thumbnailOptions.targetSize(forStored: full.size, orientation: full.orientation) ?? full.size
        guard thumbnail.size == target else {
            throw BenchmarkFailure("thumbnail is \(thumbnail.size), expected \(target)")
        }

        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: 30, budget: 8)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                Sample.onThread { blackHole(try? coder.decode(data, options: thumbnailOptions)) }
            },
            baseline: {
                try Sample.onThread {
                    let image = try coder.decode(data, options: fullOptions)
                    blackHole(image.resampled(to: target))
                }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: file.label + " → 256px", measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "full decode+resize",
            // The 4× target is for a 12 MP source; a smaller one (from a
            // --corpus folder) leaves less to skip, so it is only reported.
            target: file.megapixels >= 8 ? .ratioAtLeast(4) : nil
        )
        // A reference point: raw TurboJPEG decoding the whole file at the
        // same DCT scale, without the final resample. Entropy decoding is not
        // scaled, so on a baseline JPEG this bounds what any thumbnail path
        // can reach; on a progressive one a decoder that skips the AC scans
        // a 1/8 decode does not need can beat it.
        let layout = try DecodeFullScenario.turboJPEGFormat(for: full.pixelFormat)
        let decompressor = try RawTurboJPEG.Decompressor()
        let scaled = try decompressor.decodeScaled(data, pixelFormat: layout, covering: (target.width * 2, target.height * 2))
        let reference = try await InterleavedMeasurement.runAlone(
            plan: context.plan(warmup: 1, minIterations: 5, maxIterations: 20, budget: 1.5), progress: context.progress
        ) {
            try Sample.onThread { blackHole(try decompressor.decodeScaled(data, pixelFormat: layout, covering: (target.width * 2, target.height * 2))) }
        }
        var note = "\(file.name) → \(target.width)×\(target.height); both sides JPEGCoder + resampler"
        if let referenceCPU = reference.median(.cpu), let baselineCPU = measurement.baseline.median(.cpu) {
            note += "; reference: raw tjDecompress2 of the whole file at \(scaled.scale) scale (\(scaled.width)×\(scaled.height)), "
                + "no resample, takes \(Format.seconds(referenceCPU)) CPU = \(Format.ratio(baselineCPU / referenceCPU)) the baseline's speed"
            row.reference = ReferencePoint(ratio: baselineCPU / referenceCPU, what: "raw tjDecompress2 at the same DCT scale, without the resample")
        }
        row.note = note
        return row
    }
}
