import AWIBenchResults
@_spi(Benchmarks) import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation

/// How good the 256-pixel thumbnails are, per class and per reduction
/// (DCT scale, box factor), for the library (its default filter and its
/// `.area` speed option), pyvips and Pillow on the same files.
///
/// Every thumbnail is scored against a reference made the slow, careful way
/// — the full-size decode, its ICC profile applied, Lanczos-3 in linear
/// light on premultiplied alpha, at the thumbnail's own size — with
/// SSIMULACRA 2 (PyPI `ssimulacra2`; higher is better, 100 is identical)
/// and butteraugli (libjxl's `butteraugli_main`, Debian `libjxl-devtools`;
/// lower is better). The references, the baselines' thumbnails and the
/// scores come from `Benchmarks/quality/thumbnail_quality.py`; this side
/// writes the library's thumbnails as PNG (lossless) for it.
///
/// Target per class: the library's median SSIMULACRA 2 at least pyvips's,
/// and at most 1 file in 10 worse than pyvips's by more than 2 points.
/// Speed is measured beside it by `pyvips-thumbnail` (the same files and
/// classes, pyvips and Pillow).
///
/// With `--report DIR` (into `DIR/crops`) or `AWI_QUALITY_CROPS=DIR` in the environment, the helper also writes
/// each class's worst file (the library furthest below pyvips) to DIR as
/// 4× crops side by side, reference, library, pyvips, Pillow — the
/// README's crops come from it.
struct ThumbnailQualityScenario: Scenario {
    let name = "thumbnail-quality"
    let summary = "256 px thumbnails scored against a full-size Lanczos-3 linear-light reference (SSIMULACRA 2, butteraugli), library vs pyvips vs Pillow per class and decode scale (target: median ≥ pyvips, ≤ 1 in 10 worse by > 2)"

    private static let side = 256
    /// Files per class on the generated corpus (a `--corpus` folder is scored whole).
    private static let filesPerClass = 8

    static var helperScript: URL {
        BenchmarkPaths.benchmarks.appendingPathComponent("quality/thumbnail_quality.py")
    }

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard FileManager.default.fileExists(atPath: Self.helperScript.path) else {
            throw ScenarioSkipped("no \(Self.helperScript.path) (run from the repository)")
        }
        guard (try? await PyvipsThumbnailScenario.python(["-c", "import ssimulacra2, PIL, numpy, pyvips"]))?.status == 0 else {
            throw ScenarioSkipped("python3 cannot import ssimulacra2, PIL, numpy and pyvips (scripts/install-deps installs them)")
        }
        guard (try? await ChildProcess.run(ChildProcess.env, ["which", "butteraugli_main"]))?.status == 0 else {
            throw ScenarioSkipped("no butteraugli_main (apt-get install libjxl-devtools)")
        }
        let limit = context.options.corpusDirectory == nil ? Self.filesPerClass : Int.max
        var classes: [(String, [CorpusImage])] = [
            ("baseline JPEG", context.corpus.images.filter { $0.format == .jpeg && $0.variant == .baseline }),
            ("progressive JPEG", context.corpus.images.filter { $0.format == .jpeg && $0.variant == .progressive }),
            ("PNG", context.corpus.images.filter { $0.format == .png }),
            ("WebP", context.corpus.images.filter { $0.format == .webp }),
        ]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-thumbnail-quality-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if classes[3].1.isEmpty {
            classes[3].1 = try PyvipsThumbnailScenario.makeWebP(from: context.corpus, in: folder.appendingPathComponent("webp"))
        }

        let registry = ImageCoderRegistry.allFormats
        let quality = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: Self.side, height: Self.side))
        var fast = quality
        fast.thumbnailFilter = .area
        var entries: [[String: Any]] = []
        for (label, files) in classes {
            for (index, file) in files.sorted(by: { $0.byteCount > $1.byteCount }).prefix(limit).enumerated() {
                let data = try Data(contentsOf: URL(fileURLWithPath: file.path))
                var candidates: [String: String] = [:]
                for (candidate, options) in [("library", quality), ("library .area", fast)] {
                    let thumbnail = try registry.decode(data, options: options)
                    let path = folder.appendingPathComponent("\(label)-\(index)-\(candidate).png").path
                    try PNGCoder(compressionLevel: 1).encode(thumbnail, as: .png, quality: 1).write(to: URL(fileURLWithPath: path))
                    candidates[candidate] = path
                }
                entries.append([
                    "path": file.path, "class": label,
                    "scale": quality.thumbnailReductionLabel(of: data) ?? (file.format == .webp ? "libwebp to 2×" : "-"),
                    "candidates": candidates,
                ])
            }
        }
        let cache = CorpusGenerator.defaultDirectory() + "/../quality-references"
        var manifest: [String: Any] = ["size": Self.side, "cache": cache, "baselines": ["pyvips", "pillow"], "files": entries]
        if let crops = context.options.qualityCropsDirectory {
            manifest["crops"] = URL(fileURLWithPath: crops).standardizedFileURL.path
        }
        let manifestURL = folder.appendingPathComponent("manifest.json")
        let resultURL = folder.appendingPathComponent("result.json")
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        context.progress.beginCase("scoring \(entries.count) files × 4 thumbnails")
        let run = try await ChildProcess.run(ChildProcess.env, ["python3", Self.helperScript.path, manifestURL.path, resultURL.path])
        guard run.status == 0, let result = try JSONSerialization.jsonObject(with: Data(contentsOf: resultURL)) as? [String: Any],
              let summary = result["summary"] as? [String: Any]
        else { throw BenchmarkFailure("quality helper failed (\(run.status)): \(run.output.suffix(2000))") }
        var rows: [ResultRow] = []
        for section in ["by_class", "by_scale"] {
            guard let lines = summary[section] as? [[String: Any]] else { continue }
            let groups = Dictionary(grouping: lines) { $0["group"] as? String ?? "?" }
            for group in groups.keys.sorted() {
                rows.append(Self.row(scenario: name, group: group, lines: groups[group] ?? [], perScale: section == "by_scale"))
            }
        }
        return rows
    }

    /// One row: the library's figures against pyvips's and Pillow's for `group`.
    private static func row(scenario: String, group: String, lines: [[String: Any]], perScale: Bool) -> ResultRow {
        func line(_ candidate: String) -> [String: Any]? { lines.first { $0["candidate"] as? String == candidate } }
        func describe(_ candidate: String, _ label: String) -> String? {
            guard let line = line(candidate), let median = line["ssimulacra2_median"] as? Double,
                  let p10 = line["ssimulacra2_p10"] as? Double else { return nil }
            var text = String(format: "%@ %.1f / p10 %.1f", label, median, p10)
            if let butteraugli = line["butteraugli_3norm_median"] as? Double { text += String(format: ", butteraugli-3 %.2f", butteraugli) }
            if let worse = line["worse_than_pyvips_by_2"] as? Int, let files = line["files"] as? Int {
                text += " (\(worse)/\(files) worse than pyvips by > 2)"
            }
            return text
        }
        var row = ResultRow(scenario: scenario, caseName: "\(group) → \(side)px" + (perScale ? "" : " (class)"))
        row.group = perScale ? nil : group
        row.metrics = QualityMetrics.flattened(lines)
        row.baseline = "pyvips thumbnail_buffer; Pillow thumbnail(LANCZOS)"
        row.note = "SSIMULACRA 2 median / 10th percentile, butteraugli 3-norm median: " + [
            describe("library", "library"), describe("library .area", "library .area"),
            describe("pyvips", "pyvips"), describe("pillow", "Pillow"),
        ].compactMap { $0 }.joined(separator: "; ")
        let target = Target.condition("SSIM2 median ≥ pyvips, ≤ 1/10 worse by > 2")
        row.target = target.text
        if let ours = line("library"), let theirs = line("pyvips"),
           let median = ours["ssimulacra2_median"] as? Double, let pyvips = theirs["ssimulacra2_median"] as? Double,
           let worse = ours["worse_than_pyvips_by_2"] as? Int, let files = ours["files"] as? Int {
            row.passed = median >= pyvips && worse * 10 <= files
        }
        return row
    }
}
