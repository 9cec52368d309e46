import AWIBenchResults
import AsyncWebImage
import CTurboJPEG
import Foundation
import AsyncWebImageWebP

/// The thumbnail server's work for one 256 px thumbnail of a 12 MP baseline
/// JPEG, stage by stage, each against the raw library call doing the same:
/// decode (DCT-scaled, then the resample to 256 px) vs TurboJPEG's
/// covering-scale decode alone; the resample alone (reported); then the
/// 256 px image encoded as JPEG (TurboJPEG), PNG (libdeflate vs libspng's
/// zlib at the same level) and WebP (libwebp, same quality and method).
/// With `--corpus DIR`, also per class over every file of the folder
/// (`ThumbnailStagesScenario+Corpus.swift`).
struct ThumbnailStagesScenario: Scenario {
    let name = "thumbnail-stages"
    let summary = "256 px thumbnail of a 12 MP JPEG per stage: decode, resample, JPEG/PNG/WebP encode, each vs the raw library call"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard let file = context.corpus.image(.jpeg, .baseline, megapixels: 12) ?? context.corpus.image(.jpeg, megapixels: 12) else {
            return [.failure(scenario: name, caseName: "-", error: ScenarioSkipped("no JPEG in the corpus"))]
        }
        let data = try context.corpus.data(of: file)
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let thumbnail = try JPEGCoder().decode(data, options: options)
        let rgb = Self.packedRGB(thumbnail)
        var rows: [ResultRow] = []

        rows.append(await context.measureCase(scenario: name, caseName: file.label + " decode → 256px") {
            try await measureDecode(data, file: file, thumbnail: thumbnail, options: options, context: context)
        })
        rows.append(await context.measureCase(scenario: name, caseName: "256px encode JPEG q90") {
            try await measureEncode(
                context: context, caseName: "256px encode JPEG q90", baseline: "tjCompress2 q90 4:2:0",
                ours: { try JPEGCoder().encode(thumbnail, as: .jpeg, quality: 0.9) },
                raw: { try RawTurboJPEG.encode(rgb: rgb, width: thumbnail.width, height: thumbnail.height, quality: 90, progressive: false) }
            )
        })
        rows.append(await context.measureCase(scenario: name, caseName: "256px encode PNG level 6") {
            try await measureEncode(
                context: context, caseName: "256px encode PNG level 6", baseline: "libspng (zlib 6, adaptive filters)",
                ours: { try PNGCoder(compressionLevel: 6).encode(thumbnail, as: .png, quality: 1) },
                raw: { try RawSpng.encode(rgb: rgb, width: thumbnail.width, height: thumbnail.height, interlaced: false) }
            )
        })
        rows.append(await context.measureCase(scenario: name, caseName: "256px encode WebP q80") {
            try await measureEncode(
                context: context, caseName: "256px encode WebP q80", baseline: "WebPEncodeRGB q80",
                ours: { try WebPCoder().encode(thumbnail, as: .webp, quality: 0.8) },
                raw: { try RawWebP.encode(rgb: rgb, width: thumbnail.width, height: thumbnail.height, quality: 80) }
            )
        })
        if context.options.corpusDirectory != nil {
            rows += await corpusRows(in: context)
        }
        return rows
    }

    /// The size the library's DCT-scaled decode of `thumbnail` covers: at
    /// least 1.9 times it (`JPEGScale.thumbnailGap`: its Lanczos-3 needs room).
    static func decodeCovering(_ thumbnail: Image) -> (Int, Int) {
        (Int((Double(thumbnail.width) * 1.9).rounded(.up)), Int((Double(thumbnail.height) * 1.9).rounded(.up)))
    }

    /// The library's thumbnail decode vs raw TurboJPEG at the covering DCT
    /// scale (no resample), with the resample alone in the note.
    private func measureDecode(
        _ data: Data, file: CorpusImage, thumbnail: Image, options: ImageDecodingOptions, context: BenchmarkContext
    ) async throws -> ResultRow {
        let coder = JPEGCoder()
        let decompressor = try RawTurboJPEG.Decompressor()
        let covering = Self.decodeCovering(thumbnail)
        let scaled = try decompressor.decodeScaled(data, pixelFormat: TJPF_RGB, covering: covering)
        let intermediate = try Image(width: scaled.width, height: scaled.height, pixelFormat: .rgb8, pixels: scaled.pixels)
        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: 30, budget: 6)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { Sample.onThread { blackHole(try? coder.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try decompressor.decodeScaled(data, pixelFormat: TJPF_RGB, covering: covering)) } }
        )
        let resample = try await InterleavedMeasurement.runAlone(
            plan: context.plan(warmup: 2, minIterations: 10, maxIterations: 60, budget: 1.5), progress: context.progress
        ) {
            Sample.onThread { blackHole(intermediate.resampled(to: thumbnail.size)) }
        }
        var row = ResultRow(
            scenario: name, caseName: file.label + " decode → 256px", measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "tjDecompress2 at \(scaled.scale), no resample", target: nil
        )
        var note = "\(file.name) → \(thumbnail.width)×\(thumbnail.height) via \(scaled.width)×\(scaled.height)"
        if let ours = measurement.ours.median(.cpu), let resampleCPU = resample.median(.cpu) {
            note += "; stage CPU: decode+resample \(Format.seconds(ours)), of which the resample alone "
                + "\(Format.seconds(resampleCPU)) (\(Int((100 * resampleCPU / ours).rounded())) %)"
        }
        row.note = note
        return row
    }

    /// One encoder against its raw library call; sizes in the note.
    private func measureEncode(
        context: BenchmarkContext, caseName: String, baseline: String,
        ours: @escaping () throws -> Data, raw: @escaping () throws -> Data
    ) async throws -> ResultRow {
        let oursSize = try ours().count
        let rawSize = try raw().count
        let plan = context.plan(warmup: 3, minIterations: 10, maxIterations: 200, budget: 3)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try ours()) } },
            baseline: { try Sample.onThread { blackHole(try raw()) } }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu, baseline: baseline, target: nil
        )
        var note = "output \(oursSize) B, raw \(rawSize) B"
        if let cpu = measurement.ours.median(.cpu) { note += "; stage CPU \(Format.seconds(cpu))" }
        row.note = note
        return row
    }

    /// The image's pixels as packed RGB (what the raw encoders take).
    static func packedRGB(_ image: Image) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 3)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y) ?? [0, 0, 0]
                out += image.pixelFormat.isGray ? [p[0], p[0], p[0]] : Array(p.prefix(3))
            }
        }
        return out
    }
}
