import AWIBenchResults
import AsyncWebImage
import AsyncWebImageAllFormats
import CTurboJPEG
import Foundation
import AsyncWebImageHEIF

/// 256-pixel thumbnails of every class of the corpus (baseline JPEG,
/// progressive JPEG, PNG, WebP) through the built-in coders, against pyvips'
/// `thumbnail_buffer` (libvips' shrink-on-load) on the same files in the same
/// run, by CPU time per image. Run it on real photos with `--corpus DIR`.
///
/// HEIC: files made from the largest baseline JPEGs with an embedded
/// 512-pixel thumbnail, as phones write them; libvips' `thumbnail` decodes
/// that thumbnail when it is large enough, and so does `HEIFCoder`.
///
/// The pyvips side runs in a child process (`Benchmarks/pyvips/pyvips_thumbnail.py`)
/// that times itself after an untimed pass, so Python's and libvips' start-up
/// are not counted; it is skipped when `python3` cannot import pyvips
/// (`pip install pyvips` with Debian's `libvips42`).
///
/// WebP: the corpus's own WebP files (`--corpus /work/corpus/real` has
/// real ones); the generated corpus has none, so for it WebP files are made
/// at the start of the run from its baseline JPEGs (raw TurboJPEG decode,
/// raw libwebp `WebPEncodeRGB` at quality 80, as `webp-decode` makes them)
/// into a temporary folder both sides read.
///
/// On the generated corpus the 8 largest files of a class are measured; with
/// `--corpus DIR` every file of each class is, so the figure is the class's.
struct PyvipsThumbnailScenario: Scenario {
    let name = "pyvips-thumbnail"
    let summary = "256 px thumbnails per class (baseline/progressive JPEG, PNG, WebP, HEIC) vs pyvips thumbnail_buffer, CPU per image (target ≥ 1.2×; WebP, HEIC ≥ 1.0×)"

    /// The most files of one class measured on the generated corpus (the
    /// largest first: the work that matters); a `--corpus` folder is measured whole.
    private static let filesPerClass = 8
    private static let side = 256

    static var helperScript: URL {
        BenchmarkPaths.benchmarks.appendingPathComponent("pyvips/pyvips_thumbnail.py")
    }

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard FileManager.default.fileExists(atPath: Self.helperScript.path) else {
            throw ScenarioSkipped("no \(Self.helperScript.path) (run from the repository)")
        }
        guard (try? await Self.python(["-c", "import pyvips"]))?.status == 0 else {
            throw ScenarioSkipped("python3 cannot import pyvips (pip install pyvips; apt-get install libvips42)")
        }
        let classes: [(String, [CorpusImage])] = [
            ("baseline JPEG", context.corpus.images.filter { $0.format == .jpeg && $0.variant == .baseline }),
            ("progressive JPEG", context.corpus.images.filter { $0.format == .jpeg && $0.variant == .progressive }),
            ("PNG", context.corpus.images.filter { $0.format == .png }),
        ]
        let limit = context.options.corpusDirectory == nil ? Self.filesPerClass : Int.max
        var rows: [ResultRow] = []
        for (label, files) in classes where !files.isEmpty {
            let chosen = Array(files.sorted { $0.byteCount > $1.byteCount }.prefix(limit))
            let caseName = "\(label) ×\(chosen.count) → \(Self.side)px"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(chosen, group: label, caseName: caseName, target: 1.2, context: context)
            })
            rows.append(await context.measureCase(scenario: name, caseName: caseName + " vs Pillow") {
                try await measure(chosen, group: label, caseName: caseName + " vs Pillow", target: nil, pillow: true, context: context)
            })
        }
        var webp = context.corpus.images.filter { $0.format == .webp }
        var madeFolder: URL?
        defer { if let madeFolder { try? FileManager.default.removeItem(at: madeFolder) } }
        if webp.isEmpty {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-pyvips-webp-\(UUID().uuidString)")
            madeFolder = folder
            webp = try Self.makeWebP(from: context.corpus, in: folder)
        }
        if !webp.isEmpty {
            let chosen = Array(webp.sorted { $0.byteCount > $1.byteCount }.prefix(limit))
            let caseName = "WebP ×\(chosen.count) → \(Self.side)px" + (madeFolder == nil ? "" : " (made from the JPEGs)")
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(chosen, group: "WebP", caseName: caseName, target: 1.0, context: context)
            })
            rows.append(await context.measureCase(scenario: name, caseName: caseName + " vs Pillow") {
                try await measure(chosen, group: "WebP", caseName: caseName + " vs Pillow", target: nil, pillow: true, context: context)
            })
        }
        // HEIC: made from the largest baseline JPEGs (phones' format; no corpus has any).
        let heic = try Self.makeHEIC(from: context.corpus, count: Self.filesPerClass)
        if !heic.isEmpty {
            let caseName = "HEIC ×\(heic.count) → \(Self.side)px (made from the JPEGs, 512 px embedded thumbnail)"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(heic, group: "HEIC", caseName: caseName, target: 1.0, context: context)
            })
        }
        return rows
    }

    /// HEIC files (raw libheif, x265 quality 80, a thumbnail in a 512-pixel
    /// box as iPhones write one) of the `count` largest baseline JPEGs of
    /// `corpus`, encoded once and kept beside the generated corpus (x265
    /// takes seconds per photo).
    static func makeHEIC(from corpus: Corpus, count: Int) throws -> [CorpusImage] {
        try madeFromLargestJPEGs(of: corpus, count: count, folder: "heic-from-jpeg", format: .heic) { source, path in
            try RawHeif.encode(rgb: source.pixels, width: source.width, height: source.height, quality: 80, thumbnailBox: 512, to: path)
        }
    }

    /// AVIF files (raw libavif, aom speed 10, quantizer 24, 4:2:0, as the
    /// `avif` scenario makes them) of the `count` largest baseline JPEGs of
    /// `corpus`, encoded once and kept beside the generated corpus.
    static func makeAVIF(from corpus: Corpus, count: Int) throws -> [CorpusImage] {
        try madeFromLargestJPEGs(of: corpus, count: count, folder: "avif-from-jpeg", format: .avif) { source, path in
            try RawAvif.encode(rgb: source.pixels, width: source.width, height: source.height, quantizer: 24, speed: 10)
                .write(to: URL(fileURLWithPath: path))
        }
    }

    /// Files of `format` made by `encode` (the RGB pixels of a raw TurboJPEG
    /// decode, the path to write) from the `count` largest baseline JPEGs of
    /// `corpus`, cached in `folder` beside the generated corpus.
    private static func madeFromLargestJPEGs(
        of corpus: Corpus, count: Int, folder: String, format: ImageFormat,
        encode: (_ source: (pixels: [UInt8], width: Int, height: Int), _ path: String) throws -> Void
    ) throws -> [CorpusImage] {
        let sources = corpus.images.filter { $0.format == .jpeg && $0.variant == .baseline }
            .sorted { $0.byteCount > $1.byteCount }.prefix(count)
        var made: [CorpusImage] = []
        for jpeg in sources {
            let name = "\(folder)/" + (jpeg.name as NSString).deletingPathExtension + "-\(jpeg.byteCount).\(format.rawValue)"
            let data = try CorpusGenerator.cachedFile(name) { path in
                let source = try RawTurboJPEG.Decompressor().decode(try corpus.data(of: jpeg), pixelFormat: TJPF_RGB)
                try encode((source.pixels, source.width, source.height), path)
            }
            made.append(CorpusImage(
                name: name, path: CorpusGenerator.defaultDirectory() + "/" + name, format: format, variant: .plain,
                width: jpeg.width, height: jpeg.height, byteCount: data.count
            ))
        }
        return made
    }

    /// Lossy WebP files (quality 80) of the corpus's baseline JPEGs, written
    /// into `folder` by raw TurboJPEG and raw libwebp.
    static func makeWebP(from corpus: Corpus, in folder: URL) throws -> [CorpusImage] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var made: [CorpusImage] = []
        for jpeg in corpus.images where jpeg.format == .jpeg && jpeg.variant == .baseline {
            let source = try RawTurboJPEG.Decompressor().decode(try corpus.data(of: jpeg), pixelFormat: TJPF_RGB)
            let data = try RawWebP.encode(rgb: source.pixels, width: source.width, height: source.height, quality: 80)
            let name = (jpeg.name as NSString).deletingPathExtension + ".webp"
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            made.append(CorpusImage(
                name: name, path: url.path, format: .webp, variant: .plain,
                width: source.width, height: source.height, byteCount: data.count
            ))
        }
        return made
    }

    /// Our thumbnails of `files` against pyvips's (or, with `pillow`, Pillow's) in the same run;
    /// `group` is the class, which the quality scenario's rows share.
    private func measure(
        _ files: [CorpusImage], group: String, caseName: String, target: Double?, pillow: Bool = false, context: BenchmarkContext
    ) async throws -> ResultRow {
        let datas = try files.map { try context.corpus.data(of: $0) }
        let registry = ImageCoderRegistry.allFormats
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: Self.side, height: Self.side))
        for data in datas {
            let thumbnail = try registry.decode(data, options: options)
            guard max(thumbnail.width, thumbnail.height) == Self.side else {
                throw BenchmarkFailure("thumbnail is \(thumbnail.size), expected \(Self.side) px on its long side")
            }
        }
        let arguments = [Self.helperScript.path] + (pillow ? ["--pillow"] : []) + [String(Self.side)] + files.map(\.path)
        let plan = context.plan(warmup: 1, minIterations: 3, maxIterations: 15, budget: 10)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                try Sample.onThread { for data in datas { blackHole(try registry.decode(data, options: options)) } }
            },
            baseline: {
                let run = try await Self.python(arguments)
                let fields = run.output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                guard run.status == 0, fields.count == 2 else {
                    throw BenchmarkFailure("\(pillow ? "Pillow" : "pyvips") helper failed (\(run.status)): \(run.output)")
                }
                return Sample(wall: fields[1], cpu: fields[0])
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(files.count), unit: "img/s", basis: .cpu,
            baseline: pillow ? "Pillow thumbnail(LANCZOS)" : "pyvips thumbnail_buffer", target: target.map { .ratioAtLeast($0) }
        )
        row.group = group
        let megapixels = files.reduce(0) { $0 + $1.megapixels } / Double(files.count)
        row.note = String(format: "mean %.1f MP per file; ", megapixels) + (pillow ? "Pillow, one thread" : "libvips with VIPS_CONCURRENCY=1")
        return row
    }

    /// Runs `python3 ARGS` to completion (its output in a file, see ``ChildProcess``).
    static func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let outcome = try await ChildProcess.run(ChildProcess.env, ["python3"] + arguments)
        return (outcome.status, outcome.output)
    }
}
