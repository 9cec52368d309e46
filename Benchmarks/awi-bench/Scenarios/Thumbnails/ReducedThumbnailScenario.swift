import AWIBenchResults
import AsyncWebImage
import Foundation
import AsyncWebImageGIF
import AsyncWebImageAVIF
import AsyncWebImageAllFormats

/// GIF and AVIF 256 px thumbnails, which resample rows as they are decoded
/// (GIF) or converted from YUV (AVIF), against the route they replaced: the
/// full-size decode, then the same resample.
///
/// Per format, on a generated 6 MP photo: CPU per thumbnail, the two routes
/// interleaved in this process; and the peak RSS growth of one thumbnail,
/// each route a fresh child (`awi-bench --rss-child 256 WARMUP FILE [full]`,
/// as `thumbnail-rss` measures), alternated over at least 3 rounds. The
/// pixels of both routes are equal (the coders' tests check it), so only
/// time and memory are compared.
struct ReducedThumbnailScenario: Scenario {
    let name = "reduced-thumbnail"
    let summary = "GIF and AVIF 256 px thumbnails resampled while decoding vs full decode + resample: CPU and peak RSS (child processes)"

    private static let side = 256

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-reduced-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (width, height) = context.options.quick ? (1200, 800) : (3000, 2000)
        var rows: [ResultRow] = []
        for format in [ImageFormat.gif, .avif] {
            let caseName = "\(format) \(width)×\(height) → \(Self.side)px"
            let files: (warmup: String, file: String)
            do {
                files = try Self.write(format, width: width, height: height, into: folder)
            } catch {
                rows.append(ResultRow.failure(scenario: name, caseName: caseName, error: error))
                continue
            }
            rows.append(await context.measureCase(scenario: name, caseName: caseName + " CPU") {
                try await measureCPU(path: files.file, caseName: caseName + " CPU", context: context)
            })
            rows.append(await context.measureCase(scenario: name, caseName: caseName + " peak RSS") {
                try await measureRSS(files, caseName: caseName + " peak RSS", context: context)
            })
        }
        return rows
    }

    /// Writes a photo-like `width × height` file of `format` and a 64×48 one
    /// to warm the child processes up with; returns their paths
    /// (`thumbnail-rss` measures the same files).
    static func write(_ format: ImageFormat, width: Int, height: Int, into folder: URL) throws -> (warmup: String, file: String) {
        var paths: [String] = []
        for (w, h, label) in [(64, 48, "warmup"), (width, height, "photo")] {
            let image = try Image(width: w, height: h, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb(width: w, height: h, seed: 7))
            let data: Data
            if format == .gif {
                var frames = [image]
                data = try AnimatedGIFEncoder().encodeAnimation(loopCount: 0) {
                    frames.isEmpty ? nil : (frames.removeFirst(), .milliseconds(100))
                }
            } else {
                data = try AVIFCoder(speed: 10).encode(image, as: .avif, quality: 0.6)
            }
            let path = folder.appendingPathComponent("\(label).\(format)").path
            guard FileManager.default.createFile(atPath: path, contents: data) else { throw BenchmarkFailure("cannot write \(path)") }
            paths.append(path)
        }
        return (paths[0], paths[1])
    }

    private func measureCPU(path: String, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchmarkFailure("cannot read \(path)") }
        let registry = ImageCoderRegistry.allFormats
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: Self.side, height: Self.side))
        let thumbnail = try registry.decode(data, options: options)
        let full = try registry.decode(data, options: .init())
        guard let target = options.targetSize(forStored: full.size, orientation: full.orientation), target == thumbnail.size else {
            throw BenchmarkFailure("thumbnail is \(thumbnail.size), not the full decode's target size")
        }
        guard thumbnail.hasSamePixels(as: full.resampled(to: target)) else {
            throw BenchmarkFailure("the routes disagree: the thumbnail is not the full decode resampled")
        }
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 30, budget: 8)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try registry.decode(data, options: options)) } },
            baseline: { try Sample.onThread { blackHole(try registry.decode(data, options: .init()).resampled(to: target)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "full decode + resample", target: .ratioAtLeast(0.95)
        )
        row.note = "\(data.count / 1024) KB → \(target.width)×\(target.height); same pixels on both routes"
        return row
    }

    private func measureRSS(_ files: (warmup: String, file: String), caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let rounds = context.options.quick ? 1 : max(3, Int((3 * context.options.durationScale).rounded()))
        var ours: [Int] = []
        var theirs: [Int] = []
        let arguments = ["--rss-child", String(Self.side), files.warmup, files.file]
        for round in 0..<rounds {
            for route in round.isMultiple(of: 2) ? ["reduced", "full"] : ["full", "reduced"] {
                let outcome = try await ChildProcess.run(ChildProcess.ownExecutable, arguments + (route == "full" ? ["full"] : []))
                let words = outcome.output.split(whereSeparator: \.isWhitespace)
                guard outcome.status == 0, words.count == 4, let rss = Int(words[1]), let hwm = Int(words[3]) else {
                    throw BenchmarkFailure("rss child exited \(outcome.status): \(outcome.output.prefix(200))")
                }
                if route == "full" { theirs.append(hwm - rss) } else { ours.append(hwm - rss) }
            }
            context.progress.update(fraction: Double(round + 1) / Double(rounds))
        }
        guard let our = Statistics(ours.map(Double.init)), let their = Statistics(theirs.map(Double.init)) else {
            throw BenchmarkFailure("no measurement")
        }
        var row = ResultRow(scenario: name, caseName: caseName)
        row.unit = "MiB"
        row.throughput = our.median / 1_048_576
        row.baseline = "full decode + resample (VmHWM growth)"
        row.baselineThroughput = their.median / 1_048_576
        // Above 1: the reduced route holds less.
        row.ratio = their.median / max(our.median, 1)
        row.target = "≤ full decode + resample"
        row.passed = our.median <= their.median
        row.note = "peak growth reduced \(Format.bytes(Int(our.median))) (\(Format.bytes(ours.min() ?? 0))–\(Format.bytes(ours.max() ?? 0)))"
            + ", full \(Format.bytes(Int(their.median))) (\(Format.bytes(theirs.min() ?? 0))–\(Format.bytes(theirs.max() ?? 0)))"
            + " over \(rounds) alternated runs; ratio = full ÷ reduced"
        return row
    }
}
