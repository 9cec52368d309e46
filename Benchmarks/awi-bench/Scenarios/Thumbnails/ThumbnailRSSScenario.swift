import AWIBenchResults
import AsyncWebImage
import Foundation
import AsyncWebImageAllFormats

/// The memory one 256 px thumbnail costs, per class (baseline JPEG,
/// progressive JPEG, PNG from the corpus; GIF and AVIF generated 6 MP
/// photos, as `reduced-thumbnail` writes them, the corpus having neither),
/// ours against pyvips' `thumbnail_buffer`.
///
/// Each measurement is a fresh child process — this executable
/// (`awi-bench --rss-child SIZE WARMUP FILE`) or the pyvips helper
/// (`pyvips_thumbnail.py --rss SIZE WARMUP FILE`) — that thumbnails the
/// class's smallest file first (libraries load and set up on first use),
/// resets its peak RSS (`/proc/self/clear_refs`), reads its RSS, thumbnails
/// FILE once and reports its peak (VmHWM). The figure is the growth, peak −
/// RSS before: what holding the file's decode costs, without either
/// runtime's start-up. The largest files of each class by pixel count are
/// measured (the peak of a class is set by them), the two sides alternated
/// over at least 3 rounds.
struct ThumbnailRSSScenario: Scenario {
    let name = "thumbnail-rss"
    let summary = "peak RSS of one 256 px thumbnail per class (JPEG, PNG; generated GIF, AVIF; child processes, VmHWM growth) vs pyvips thumbnail_buffer"

    private static let side = 256
    /// The largest files of a class measured.
    private static let filesPerClass = 4

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let classes: [(String, [CorpusImage])] = [
            ("baseline JPEG", context.corpus.images.filter { $0.format == .jpeg && $0.variant == .baseline }),
            ("progressive JPEG", context.corpus.images.filter { $0.format == .jpeg && $0.variant == .progressive }),
            ("PNG", context.corpus.images.filter { $0.format == .png }),
        ]
        var havePyvips = FileManager.default.fileExists(atPath: PyvipsThumbnailScenario.helperScript.path)
        if havePyvips { havePyvips = (try? await PyvipsThumbnailScenario.python(["-c", "import pyvips"]))?.status == 0 }
        var rows: [ResultRow] = []
        for (label, files) in classes where files.count >= 2 {
            let bySize = files.sorted { $0.width * $0.height < $1.width * $1.height }
            guard let warmup = bySize.first else { continue }
            let measured = Array(bySize.dropFirst().suffix(context.options.quick ? 1 : Self.filesPerClass))
            let caseName = "\(label) ×\(measured.count) largest → \(Self.side)px"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(measured.map(\.path), warmup: warmup.path, caseName: caseName, pyvips: havePyvips, context: context)
            })
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-thumbnail-rss-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (width, height) = context.options.quick ? (1200, 800) : (3000, 2000)
        for format in [ImageFormat.gif, .avif] {
            let caseName = "\(format) \(width)×\(height) generated → \(Self.side)px"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                let files = try ReducedThumbnailScenario.write(format, width: width, height: height, into: folder)
                return try await measure([files.file], warmup: files.warmup, caseName: caseName, pyvips: havePyvips, context: context)
            })
        }
        return rows
    }

    private func measure(
        _ files: [String], warmup: String, caseName: String, pyvips: Bool, context: BenchmarkContext
    ) async throws -> ResultRow {
        let rounds = context.options.quick ? 1 : max(3, Int((3 * context.options.durationScale).rounded()))
        var ours: [String: [Int]] = [:]
        var theirs: [String: [Int]] = [:]
        var oursAbsolute = 0
        var theirsAbsolute = 0
        for round in 0..<rounds {
            for (index, file) in files.enumerated() {
                let arguments = ["--rss", String(Self.side), warmup, file]
                let pyvipsFirst = (round + index).isMultiple(of: 2)
                for side in pyvipsFirst ? ["pyvips", "ours"] : ["ours", "pyvips"] {
                    if side == "ours" {
                        let report = try await Self.runOurs(Array(arguments.dropFirst()))
                        ours[file, default: []].append(report.hwm - report.rss)
                        oursAbsolute = max(oursAbsolute, report.hwm)
                    } else if pyvips {
                        let run = try await PyvipsThumbnailScenario.python([PyvipsThumbnailScenario.helperScript.path] + arguments)
                        guard run.status == 0, let report = Self.parse(run.output) else {
                            throw BenchmarkFailure("pyvips helper failed (\(run.status)): \(run.output.prefix(200))")
                        }
                        theirs[file, default: []].append(report.hwm - report.rss)
                        theirsAbsolute = max(theirsAbsolute, report.hwm)
                    }
                }
            }
            context.progress.update(fraction: Double(round + 1) / Double(rounds))
        }
        // A class's peak: the largest per-file median; the spread is over rounds of that file.
        func peak(_ samples: [String: [Int]]) -> (median: Int, low: Int, high: Int, file: String)? {
            samples.compactMap { path, values -> (Int, Int, Int, String)? in
                guard let stats = Statistics(values.map(Double.init)) else { return nil }
                return (Int(stats.median), values.min() ?? 0, values.max() ?? 0, (path as NSString).lastPathComponent)
            }.max { $0.0 < $1.0 }
        }
        var row = ResultRow(scenario: name, caseName: caseName)
        row.unit = "MiB"
        guard let our = peak(ours) else { throw BenchmarkFailure("no measurement") }
        row.throughput = Double(our.median) / 1_048_576
        row.peakRSS = oursAbsolute
        var note = "peak growth ours \(Format.bytes(our.median)) (\(Format.bytes(our.low))–\(Format.bytes(our.high)) over \(rounds) runs, \(our.file))"
        if let their = peak(theirs) {
            row.baseline = "pyvips thumbnail_buffer (VmHWM growth)"
            row.baselineThroughput = Double(their.median) / 1_048_576
            // Above 1: we hold less than pyvips.
            row.ratio = Double(their.median) / Double(max(our.median, 1))
            row.target = "≤ pyvips"
            row.passed = our.median <= their.median
            note += ", pyvips \(Format.bytes(their.median)) (\(Format.bytes(their.low))–\(Format.bytes(their.high)), \(their.file))"
                + "; process peaks: ours \(Format.bytes(oursAbsolute)), pyvips \(Format.bytes(theirsAbsolute))"
        } else {
            note += "; pyvips not installed (pip install pyvips; apt-get install libvips42)"
        }
        row.note = note + "; ratio = pyvips ÷ ours (above 1: less memory)"
        return row
    }

    /// Runs `awi-bench --rss-child ARGS` and parses its report.
    private static func runOurs(_ arguments: [String]) async throws -> (rss: Int, hwm: Int) {
        let outcome = try await ChildProcess.run(ChildProcess.ownExecutable, ["--rss-child"] + arguments)
        let (status, text) = (outcome.status, outcome.output)
        guard status == 0, let report = parse(text) else {
            throw BenchmarkFailure("rss child exited \(status): \(text.prefix(200))")
        }
        return report
    }

    /// Parses "rss BYTES hwm BYTES".
    private static func parse(_ text: String) -> (rss: Int, hwm: Int)? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 4, words[0] == "rss", words[2] == "hwm", let rss = Int(words[1]), let hwm = Int(words[3]) else {
            return nil
        }
        return (rss, hwm)
    }

    /// The child side: `SIZE WARMUP FILE [full]`, through the built-in
    /// registry as the loader decodes; with `full`, the route a thumbnail
    /// took before its coder resampled while decoding: the full-size decode,
    /// then the same resample (`reduced-thumbnail` compares the two).
    /// Returns the exit code.
    static func child(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3 || (arguments.count == 4 && arguments[3] == "full"), let side = Int(arguments[0]), side > 0,
              let warmup = FileManager.default.contents(atPath: arguments[1])
        else {
            BenchmarkRunner.printError("usage: awi-bench --rss-child SIZE WARMUP FILE [full]")
            return 2
        }
        let registry = ImageCoderRegistry.allFormats
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: side, height: side))
        let decode: (Data) throws -> Image = arguments.count == 4
            ? { data in
                let full = try registry.decode(data, options: .init())
                guard let target = options.targetSize(forStored: full.size, orientation: full.orientation) else { return full }
                return full.resampled(to: target)
            }
            : { data in try registry.decode(data, options: options) }
        do {
            blackHole(try decode(warmup))
            guard let data = FileManager.default.contents(atPath: arguments[2]) else {
                BenchmarkRunner.printError("cannot read \(arguments[2])")
                return 2
            }
            guard ResourceUsage.resetPeakRSS(), let before = ResourceUsage.currentRSSBytes() else {
                BenchmarkRunner.printError("no /proc/self/clear_refs or VmRSS")
                return 3
            }
            blackHole(try decode(data))
            guard let peak = ResourceUsage.peakRSSBytes() else { return 3 }
            print("rss \(before) hwm \(peak)")
            return 0
        } catch {
            BenchmarkRunner.printError("decode failed: \(error)")
            return 1
        }
    }
}
