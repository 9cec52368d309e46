import AWIBenchResults
import AsyncWebImage
import Foundation
import Glibc

/// 256 px thumbnails and full decodes of 12 MP JPEGs and a PNG with
/// ``ImageLoader/AllocatorTuning`` applied against glibc's default allocator settings.
///
/// `mallopt` is process-wide and cannot be undone honestly (glibc's dynamic
/// mmap threshold has moved by then), so each side runs in child processes of
/// this executable (`awi-bench --allocator-child tuned|default FILE COUNT thumbnail|full`),
/// alternated tuned / default / default / tuned … over the same file. A child
/// decodes the file twice to warm up, then `COUNT` times, and prints its
/// thread CPU time, wall time and minor page faults (getrusage) per decode,
/// and the faults of its first decode apart.
struct AllocatorScenario: Scenario {
    let name = "allocator"
    let summary = "12 MP JPEG/PNG thumbnails and full decodes in child processes: ImageLoader.AllocatorTuning vs glibc defaults (CPU, page faults)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        let files = [
            context.corpus.image(.jpeg, .progressive, megapixels: 12),
            context.corpus.image(.png, .plain, megapixels: 12),
            context.corpus.image(.jpeg, .baseline, megapixels: 12),
        ].compactMap { $0 }
        for thumbnail in [true, false] {
            for file in files {
                let caseName = file.label + (thumbnail ? " → 256px" : " full decode")
                rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                    try await measure(file, thumbnail: thumbnail, caseName: caseName, context: context)
                })
            }
        }
        return rows
    }

    /// What one child reported, per decode.
    struct ChildReport: Sendable {
        var cpu: Double
        var wall: Double
        var minorFaults: Double
        /// Faults of the child's first decode.
        var coldFaults: Double
    }

    private func measure(_ file: CorpusImage, thumbnail: Bool, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let rounds = context.options.quick ? 2 : max(3, Int((4 * context.options.durationScale).rounded()))
        let decodes = context.options.quick ? 3 : 10
        var measurement = InterleavedMeasurement()
        var tunedFaults: [Double] = []
        var defaultFaults: [Double] = []
        var tunedCold: [Double] = []
        var defaultCold: [Double] = []
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? ["tuned", "default"] : ["default", "tuned"]
            for mode in order {
                let report = try await Self.runChild(mode: mode, path: file.path, decodes: decodes, thumbnail: thumbnail)
                let sample = Sample(wall: report.wall, cpu: report.cpu)
                if mode == "tuned" {
                    measurement.ours.append(sample)
                    tunedFaults.append(report.minorFaults)
                    tunedCold.append(report.coldFaults)
                } else {
                    measurement.baseline.append(sample)
                    defaultFaults.append(report.minorFaults)
                    defaultCold.append(report.coldFaults)
                }
            }
            context.progress.update(fraction: Double(round + 1) / Double(rounds))
        }
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .cpu,
            baseline: "glibc default malloc", target: nil
        )
        let tuned = Statistics(tunedFaults)?.median ?? .nan
        let plain = Statistics(defaultFaults)?.median ?? .nan
        row.note = "\(file.name); \(rounds) child processes per side, \(decodes) decodes each (after 2 warm-up); "
            + "minor page faults per decode: tuned \(Int(tuned)), default \(Int(plain))"
            + (tuned > 0 ? " (\(Format.ratio(plain / tuned)) fewer)" : "")
            + "; first decode of a process: tuned \(Int(Statistics(tunedCold)?.median ?? .nan)), default \(Int(Statistics(defaultCold)?.median ?? .nan))"
            + "; tuning: \(ImageLoader.AllocatorTuning.default.mmapThreshold >> 20) MiB mmap threshold, "
            + "\(ImageLoader.AllocatorTuning.default.trimThreshold >> 20) MiB trim threshold, \(ImageLoader.AllocatorTuning.default.maxArenas.map(String.init) ?? "glibc's") arenas"
        return row
    }

    /// Runs one child and parses its report.
    private static func runChild(mode: String, path: String, decodes: Int, thumbnail: Bool) async throws -> ChildReport {
        let outcome = try await ChildProcess.run(
            ChildProcess.ownExecutable, ["--allocator-child", mode, path, String(decodes), thumbnail ? "thumbnail" : "full"],
            mergingErrors: false
        )
        let (status, text) = (outcome.status, outcome.output)
        let words = text.split(whereSeparator: \.isWhitespace)
        var values: [String: Double] = [:]
        for index in stride(from: 0, to: words.count - 1, by: 2) { values[String(words[index])] = Double(words[index + 1]) }
        guard status == 0, let cpu = values["cpu"], let wall = values["wall"], let faults = values["minflt"], let cold = values["coldminflt"] else {
            throw BenchmarkFailure("allocator child \(mode) exited \(status): \(text.prefix(200))")
        }
        return ChildReport(cpu: cpu, wall: wall, minorFaults: faults, coldFaults: cold)
    }

    /// The child side: `tuned|default FILE COUNT thumbnail|full`. Returns the exit code.
    static func child(_ arguments: [String]) -> Int32 {
        guard arguments.count == 4, let count = Int(arguments[2]), count > 0,
              let data = FileManager.default.contents(atPath: arguments[1])
        else {
            BenchmarkRunner.printError("usage: awi-bench --allocator-child tuned|default FILE COUNT thumbnail|full")
            return 2
        }
        // "tuned" was applied in main.swift, before any thread allocated.
        if arguments[0] == "tuned" && ImageLoader.AllocatorTuning.current == nil { return 3 }
        let options = arguments[3] == "full" ? ImageDecodingOptions() : ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let decode: () throws -> Image = ImageFormat.detect(data) == .png
            ? { try PNGCoder().decode(data, options: options) }
            : { try JPEGCoder().decode(data, options: options) }
        do {
            // The first decode of a process maps everything afresh whatever the
            // settings (glibc's dynamic threshold has not moved yet): reported apart.
            let cold0 = minorFaults()
            blackHole(try decode())
            let cold = minorFaults() - cold0
            blackHole(try decode())
            let faults0 = minorFaults()
            let cpu0 = ResourceUsage.threadCPUSeconds()
            let wall0 = ResourceUsage.wallSeconds()
            for _ in 0..<count { blackHole(try decode()) }
            let cpu = (ResourceUsage.threadCPUSeconds() - cpu0) / Double(count)
            let wall = (ResourceUsage.wallSeconds() - wall0) / Double(count)
            let faults = Double(minorFaults() - faults0) / Double(count)
            print("cpu \(cpu) wall \(wall) minflt \(faults) coldminflt \(cold)")
            return 0
        } catch {
            BenchmarkRunner.printError("decode failed: \(error)")
            return 1
        }
    }

    /// Minor page faults of this process so far.
    private static func minorFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_minflt
    }
}
