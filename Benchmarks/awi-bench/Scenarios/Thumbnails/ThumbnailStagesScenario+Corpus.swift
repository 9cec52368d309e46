import AWIBenchResults
import AsyncWebImage
import CSpng
import CTurboJPEG
import Foundation

/// `thumbnail-stages` over every file of a `--corpus` folder, per class: the
/// figure of a class of real photos rather than of one generated file.
extension ThumbnailStagesScenario {
    /// The per-class rows: baseline and progressive JPEG thumbnails against
    /// TurboJPEG's covering-scale decode of each file (the resample's
    /// share in the note), PNG thumbnails and full PNG decodes against
    /// libspng's `spng_decode_image` of each file.
    func corpusRows(in context: BenchmarkContext) async -> [ResultRow] {
        let images = context.corpus.images
        var rows: [ResultRow] = []
        for (label, variant) in [("baseline JPEG", CorpusImage.Variant.baseline), ("progressive JPEG", .progressive)] {
            let files = images.filter { $0.format == .jpeg && $0.variant == variant }
            guard !files.isEmpty else { continue }
            let caseName = "\(label) ×\(files.count) decode → 256px"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measureJPEGClass(files, caseName: caseName, context: context)
            })
        }
        let pngs = images.filter { $0.format == .png }
        if !pngs.isEmpty {
            for thumbnail in [true, false] {
                let caseName = "PNG ×\(pngs.count) " + (thumbnail ? "decode → 256px" : "full decode")
                rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                    try await measurePNGClass(pngs, thumbnail: thumbnail, caseName: caseName, context: context)
                })
            }
        }
        return rows
    }

    private func measureJPEGClass(_ files: [CorpusImage], caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let coder = JPEGCoder()
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let decompressor = try RawTurboJPEG.Decompressor()
        var work: [(data: Data, covering: (Int, Int))] = []
        var intermediates: [(Image, PixelSize)] = []
        for file in files {
            let data = try context.corpus.data(of: file)
            let thumbnail = try coder.decode(data, options: options)
            let covering = ThumbnailStagesScenario.decodeCovering(thumbnail)
            let scaled = try decompressor.decodeScaled(data, pixelFormat: TJPF_RGB, covering: covering)
            intermediates.append((try Image(width: scaled.width, height: scaled.height, pixelFormat: .rgb8, pixels: scaled.pixels), thumbnail.size))
            work.append((data, covering))
        }
        let plan = context.plan(warmup: 1, minIterations: 3, maxIterations: 15, budget: 12)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { Sample.onThread { for item in work { blackHole(try? coder.decode(item.data, options: options)) } } },
            baseline: {
                try Sample.onThread {
                    for item in work { blackHole(try decompressor.decodeScaled(item.data, pixelFormat: TJPF_RGB, covering: item.covering)) }
                }
            }
        )
        let resample = try await InterleavedMeasurement.runAlone(
            plan: context.plan(warmup: 1, minIterations: 3, maxIterations: 20, budget: 2), progress: context.progress
        ) {
            Sample.onThread { for (image, size) in intermediates { blackHole(image.resampled(to: size)) } }
        }
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(files.count), unit: "img/s", basis: .cpu,
            baseline: "tjDecompress2 at the library's scale (covering 2× the thumbnail), no resample", target: .ratioAtLeast(0.95)
        )
        var note = String(format: "mean %.1f MP per file", files.reduce(0) { $0 + $1.megapixels } / Double(files.count))
        if let ours = measurement.ours.median(.cpu), let resampleCPU = resample.median(.cpu) {
            note += "; stage CPU per pass: decode+resample \(Format.seconds(ours)), of which the resample of TurboJPEG's "
                + "intermediates alone \(Format.seconds(resampleCPU)) (\(Int((100 * resampleCPU / ours).rounded())) %)"
        }
        row.note = note
        return row
    }

    private func measurePNGClass(_ files: [CorpusImage], thumbnail: Bool, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let coder = PNGCoder()
        let options = thumbnail ? ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256)) : ImageDecodingOptions()
        var work: [(data: Data, layout: spng_format)] = []
        var excluded = 0
        for file in files {
            let data = try context.corpus.data(of: file)
            let full = try coder.decode(data, options: ImageDecodingOptions())
            let layout = try DecodeFullScenario.spngFormat(for: full.pixelFormat)
            // libspng gives G8/GA8 only from some grey forms: a file it cannot
            // decode to our layout is left out of both sides.
            guard (try? RawSpng.decode(data, format: layout)) != nil else {
                excluded += 1
                continue
            }
            work.append((data, layout))
        }
        let plan = context.plan(warmup: 1, minIterations: 3, maxIterations: 15, budget: 15)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { for item in work { blackHole(try coder.decode(item.data, options: options)) } } },
            baseline: { try Sample.onThread { for item in work { blackHole(try RawSpng.decode(item.data, format: item.layout)) } } }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(work.count), unit: "img/s", basis: .cpu,
            baseline: "spng_decode_image of the whole file", target: .ratioAtLeast(1.3)
        )
        row.note = String(format: "mean %.1f MP per file; same pixel layout on both sides", files.reduce(0) { $0 + $1.megapixels } / Double(files.count))
            + (excluded > 0 ? "; \(excluded) grey file(s) left out (libspng has no G8/GA8 output for them)" : "")
        return row
    }
}
