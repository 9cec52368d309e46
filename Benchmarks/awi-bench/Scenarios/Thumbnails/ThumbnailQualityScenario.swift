import AWIBenchResults
import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation

/// How good the 256-pixel thumbnails are, per class and per reduction
/// (DCT scale, box factor), for the library (its default route and its
/// linear-light option), pyvips and Pillow on the same files, judged by a
/// panel rather than by one reference.
///
/// Every thumbnail is scored against three references made from the same
/// full-size decode (its ICC profile applied) by tools nobody here wrote:
/// Lanczos-3 in linear light, Lanczos-3 on the sRGB-encoded values (what
/// libvips and Pillow do) and the exact area average in linear light
/// (fractional edge coverage: the method of no candidate), with
/// SSIMULACRA 2 (PyPI `ssimulacra2`; higher is better, 100 is identical)
/// and butteraugli (libjxl's `butteraugli_main`, Debian `libjxl-devtools`;
/// lower is better). Halo pixels are counted against the area reference
/// and against the source's own range, and a generated set of fine
/// light-on-dark patterns (PNG and JPEG) shows how far each candidate's
/// mean linear-light luminance lands from the source's. The references,
/// the baselines' thumbnails, the patterns and the scores come from
/// `Benchmarks/quality/thumbnail_quality.py`; this side writes the
/// library's thumbnails as PNG (lossless) for it.
///
/// Targets per class, for the default route against pyvips: under the area
/// average a median at least pyvips's with at most 1 file in 10 more than 2
/// points below; under each Lanczos-3 reference a median at most 3 below;
/// halo pixels at most pyvips's. Speed is measured beside it by
/// `pyvips-thumbnail` (the same files and classes, pyvips and Pillow).
///
/// HEIC and AVIF are made from the largest baseline JPEGs (minutes of x265
/// and aom the first time, cached after); `AWI_QUALITY_DERIVED=0` leaves
/// them out.
///
/// With `--report DIR` (into `DIR/crops`) or `AWI_QUALITY_CROPS=DIR` in the
/// environment, the helper also writes
/// each class's worst file under each reference (the library furthest below
/// pyvips) to DIR as 4× crops side by side, reference, library, pyvips,
/// Pillow — the README's crops come from it.
struct ThumbnailQualityScenario: Scenario {
    let name = "thumbnail-quality"
    let summary = "256 px thumbnails judged by three references (linear and sRGB Lanczos-3, linear area average), halos and line-pattern luminance; library vs pyvips vs Pillow per class (targets: area median ≥ pyvips, ≤ 1 in 10 worse by > 2, Lanczos medians ≥ pyvips − 3, halos ≤ pyvips)"

    private static let side = 256
    /// Files per class on the generated corpus, and of the classes made from
    /// the largest JPEGs (HEIC, AVIF); a `--corpus` folder is scored whole.
    private static let filesPerClass = 8
    /// The label of the generated pattern classes (the helper reports their luminance error).
    static let patternClass = "line patterns"

    static var helperScript: URL {
        BenchmarkPaths.benchmarks.appendingPathComponent("quality/thumbnail_quality.py")
    }

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard FileManager.default.fileExists(atPath: Self.helperScript.path) else {
            throw ScenarioSkipped("no \(Self.helperScript.path) (run from the repository)")
        }
        guard (try? await PyvipsThumbnailScenario.python(["-c", "import ssimulacra2, PIL, numpy, scipy, pyvips"]))?.status == 0 else {
            throw ScenarioSkipped("python3 cannot import ssimulacra2, PIL, numpy, scipy and pyvips (scripts/install-deps installs them)")
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
        // Encoding them takes minutes the first time (x265, aom), then they are cached.
        if ProcessInfo.processInfo.environment["AWI_QUALITY_DERIVED"] != "0" {
            classes.append(("HEIC", try PyvipsThumbnailScenario.makeHEIC(from: context.corpus, count: Self.filesPerClass)))
            classes.append(("AVIF", try PyvipsThumbnailScenario.makeAVIF(from: context.corpus, count: Self.filesPerClass)))
        }
        let patterns = try await Self.patterns(in: CorpusGenerator.defaultDirectory() + "/../quality-patterns")
        classes.append(("\(Self.patternClass) (PNG)", patterns.filter { $0.format == .png }))
        classes.append(("\(Self.patternClass) (JPEG)", patterns.filter { $0.format == .jpeg }))

        let registry = ImageCoderRegistry.allFormats
        let route = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: Self.side, height: Self.side))
        var linear = route
        linear.thumbnailLight = .linear
        var entries: [[String: Any]] = []
        for (label, files) in classes {
            let chosen = files.sorted { $0.byteCount > $1.byteCount }.prefix(label.hasPrefix(Self.patternClass) ? Int.max : limit)
            for (index, file) in chosen.enumerated() {
                let data = try Data(contentsOf: URL(fileURLWithPath: file.path))
                var candidates: [String: String] = [:]
                for (candidate, options) in [("library", route), ("library linear", linear)] {
                    let thumbnail = try registry.decode(data, options: options)
                    let path = folder.appendingPathComponent("\(label)-\(index)-\(candidate).png").path
                    try PNGCoder(compressionLevel: 1).encode(thumbnail, as: .png, quality: 1).write(to: URL(fileURLWithPath: path))
                    candidates[candidate] = path
                }
                entries.append([
                    "path": file.path, "class": label,
                    "scale": route.thumbnailReductionLabel(of: data) ?? (file.format == .webp ? "libwebp to 2×" : "-"),
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
        context.progress.beginCase("scoring \(entries.count) files × 4 thumbnails × 3 references")
        let run = try await ChildProcess.run(ChildProcess.env, ["python3", Self.helperScript.path, manifestURL.path, resultURL.path])
        guard run.status == 0, let result = try JSONSerialization.jsonObject(with: Data(contentsOf: resultURL)) as? [String: Any],
              let summary = result["summary"] as? [String: Any]
        else { throw BenchmarkFailure("quality helper failed (\(run.status)): \(run.output.suffix(2000))") }
        if let keep = ProcessInfo.processInfo.environment["AWI_QUALITY_RESULT"], !keep.isEmpty {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: resultURL, to: URL(fileURLWithPath: keep))
        }
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

    /// The helper's line-pattern set (PNG and JPEG), written once into `directory`.
    private static func patterns(in directory: String) async throws -> [CorpusImage] {
        let made = try await ChildProcess.run(ChildProcess.env, ["python3", helperScript.path, "--make-patterns", directory], mergingErrors: false)
        guard made.status == 0 else { throw BenchmarkFailure("pattern set failed (\(made.status)): \(made.errors.suffix(2000))") }
        return try made.output.split(separator: "\n").map { line in
            let path = String(line)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let image = try ImageCoderRegistry.allFormats.decode(data, options: ImageDecodingOptions())
            return CorpusImage(
                name: (path as NSString).lastPathComponent, path: path, format: ImageFormat.detect(data),
                variant: .plain, width: image.width, height: image.height, byteCount: data.count
            )
        }
    }

    /// One row: the library's figures against pyvips's and Pillow's for `group`.
    private static func row(scenario: String, group: String, lines: [[String: Any]], perScale: Bool) -> ResultRow {
        func line(_ candidate: String) -> [String: Any]? { lines.first { $0["candidate"] as? String == candidate } }
        func describe(_ candidate: String, _ label: String) -> String? {
            guard let line = line(candidate) else { return nil }
            let medians = ["linear-area", "linear-lanczos3", "srgb-lanczos3"].map { kind in
                String(format: "%.1f", line["\(kind):median"] as? Double ?? .nan)
            }
            var text = "\(label) \(medians.joined(separator: " / "))"
            if let butteraugli = line["linear-area:butteraugli_median"] as? Double { text += String(format: ", butteraugli-3 %.2f", butteraugli) }
            if let halos = line["halo_area:mean"] as? Double, let source = line["halo_source:mean"] as? Double {
                text += String(format: ", halos %.0f / %.0f", halos, source)
            }
            if let luminance = line["luminance_error:mean_abs"] as? Double { text += String(format: ", luminance off %.1f %%", luminance) }
            if let worse = line["linear-area:worse_than_pyvips_by_2"] as? Int, let files = line["files"] as? Int {
                text += " (\(worse)/\(files) below pyvips by > 2 under the area average)"
            }
            return text
        }
        var row = ResultRow(scenario: scenario, caseName: "\(group) → \(side)px" + (perScale ? "" : " (class)"))
        row.group = perScale ? nil : group
        row.metrics = QualityMetrics.flattened(lines)
        row.baseline = "pyvips thumbnail_buffer; Pillow thumbnail(LANCZOS)"
        row.note = "SSIMULACRA 2 median under the area average / linear Lanczos-3 / sRGB Lanczos-3, butteraugli 3-norm median "
            + "(area), halo pixels per thumbnail (area reference / source range): " + [
                describe("library", "library"), describe("library linear", "library linear"),
                describe("pyvips", "pyvips"), describe("pillow", "Pillow"),
            ].compactMap { $0 }.joined(separator: "; ")
        let target = Target.condition("area ≥ pyvips, ≤ 1/10 worse by > 2; Lanczos ≥ pyvips − 3; halos ≤ pyvips")
        row.target = target.text
        if let ours = line("library"), let theirs = line("pyvips") {
            func median(_ line: [String: Any], _ kind: String) -> String { String(format: "%.1f", line["\(kind):median"] as? Double ?? .nan) }
            func halos(_ line: [String: Any]) -> String { String(format: "%.0f", line["halo_area:mean"] as? Double ?? .nan) }
            let worse = (ours["linear-area:worse_than_pyvips_by_2"] as? Int).map { "\($0)/\(ours["files"] as? Int ?? 0)" } ?? "-"
            row.measured = "area median \(median(ours, "linear-area")) vs pyvips \(median(theirs, "linear-area")), "
                + "\(worse) files more than 2 below; linear / sRGB Lanczos-3 \(median(ours, "linear-lanczos3")) / "
                + "\(median(ours, "srgb-lanczos3")) vs \(median(theirs, "linear-lanczos3")) / \(median(theirs, "srgb-lanczos3")); "
                + "halos \(halos(ours)) vs \(halos(theirs))"
        }
        if !group.hasPrefix(patternClass), let targets = line("library")?["targets"] as? [String: Bool] {
            row.passed = targets.values.allSatisfy { $0 }
            if let missed = Optional(targets.filter { !$0.value }.keys.sorted()), !missed.isEmpty {
                row.note = (row.note ?? "") + "; missed: " + missed.joined(separator: ", ")
            }
        }
        return row
    }
}
