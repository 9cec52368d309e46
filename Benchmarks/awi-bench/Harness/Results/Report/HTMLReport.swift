public import Foundation

/// The run as one self-contained HTML page (`--report DIR` writes it as
/// `DIR/index.html`): the headline, the missed targets explained, the
/// charts as inline SVG (ratios against targets, quality against speed per
/// class, latency percentiles), the quality crops embedded as data URLs,
/// the comparison with a base run when there is one, and the full table.
/// Nothing is fetched when it opens: no scripts, fonts or files beside it.
public struct HTMLReport: Sendable {
    /// The run.
    public var document: BenchmarkDocument
    /// The comparison with a base run (`--compare`), if any.
    public var comparison: RunComparison?
    /// The PNG bytes of each of the document's images (`nil`: missing, said on the page).
    public var imageData: [Data?]

    /// A report of `document`; `images` reads each ``ReportImage`` (in the document's order).
    public init(document: BenchmarkDocument, comparison: RunComparison? = nil, images: (ReportImage) -> Data?) {
        self.document = document
        self.comparison = comparison
        imageData = (document.images ?? []).map(images)
    }

    /// Reads each image from its path, a relative one resolved against `base` (the JSON file's folder).
    public static func readImage(_ image: ReportImage, relativeTo base: URL?) -> Data? {
        let url = image.path.hasPrefix("/") || base == nil
            ? URL(fileURLWithPath: image.path) : base!.appendingPathComponent(image.path)
        return try? Data(contentsOf: url)
    }

    /// Writes the page to `directory/index.html` (creating the folder) and returns its URL.
    @discardableResult
    public func write(to directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("index.html")
        try Data(render().utf8).write(to: url, options: .atomic)
        return url
    }

    /// The page.
    public func render() -> String {
        var body: [String] = []
        body.append(header())
        body.append(section("headline", "Headline", headline()))
        body.append(section("misses", "Missed targets, explained", misses()))
        body.append(section("ratios", "Ratios against targets", RatioChart.render(rows: document.rows)
            ?? "<p>No row of this run has a ratio.</p>"))
        let groups = GroupComparison(rows: document.rows)
        body.append(section("quality-speed", "Quality against speed per class",
            (QualitySpeedChart.render(comparison: groups)
                ?? "<p>No class has both a speed and a quality row in this run (they come from <code>--scenario pyvips-thumbnail --scenario thumbnail-quality</code>, both in the default run).</p>")
                + qualityMetrics(groups)))
        body.append(section("latency", "Latency percentiles", LatencyChart.render(rows: document.rows)
            ?? "<p>No row of this run has latency percentiles.</p>"))
        body.append(section("crops", "Quality crops (4×)", crops()))
        if let comparison { body.append(section("compare", "Compared with the base run", compared(comparison))) }
        body.append(section("rows", "Every row", rows()))
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>awi-bench report, \(HTML.escape(document.environment.startedAt))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            \(body.joined(separator: "\n"))
            </body>
            </html>

            """
    }

    private func section(_ id: String, _ title: String, _ content: String) -> String {
        "<section id=\"\(id)\"><h2>\(HTML.escape(title))</h2>\n\(content)\n</section>"
    }

    private func header() -> String {
        let environment = document.environment
        let (met, measured, errors) = (document.targetsMet, document.targetsMeasured, document.errors)
        let loads = [environment.loadAverageAtStart, environment.loadAverageAtEnd].map { load in load.map { String(format: "%.2f", $0) } ?? "?" }
        let suites = document.suites ?? []
        let selection = suites.isEmpty ? "scenarios: " + document.scenarios.joined(separator: ", ") : "suites: " + suites.joined(separator: ", ")
        var facts: [String] = ["started \(environment.startedAt)", "\(environment.cores) cores", "1-min load average " + loads.joined(separator: " → ")]
        if let seconds = environment.wallSeconds { facts.append(String(format: "run took %.0f s", seconds)) }
        facts.append(selection)
        facts.append(document.corpus.map { "corpus \($0)" } ?? "generated corpus")
        if document.quick { facts.append("--quick") }
        if document.durationScale != 1 { facts.append("--duration-scale \(Format.significant(document.durationScale))") }
        var html = "<header><h1>awi-bench: AsyncWebImage against its baselines</h1>\n<p class=\"facts\">"
            + HTML.escape(facts.joined(separator: " · ")) + "</p>\n"
        html += "<p class=\"tally\">targets met: <strong>\(met)/\(measured)</strong>" + (errors > 0 ? " · \(errors) case(s) failed to run" : "") + "</p>\n"
        if let warning = environment.warning { html += "<p class=\"warning\">\(HTML.escape(warning))</p>\n" }
        html += "<p class=\"definition\">Ratio = \(HTML.escape(document.ratioDefinition)). Every baseline ran in the same process or the same run, in interleaved rounds.</p>"
        let links: [(String, String)] = [
            ("headline", "headline"), ("misses", "missed targets"), ("ratios", "ratios"), ("quality-speed", "quality vs speed"),
            ("latency", "latency"), ("crops", "crops"),
        ] + (comparison == nil ? [] : [("compare", "comparison")]) + [("rows", "every row")]
        html += "<nav>" + links.map { "<a href=\"#\($0.0)\">\($0.1)</a>" }.joined(separator: " · ") + "</nav></header>"
        return html
    }

    private func headline() -> String {
        let sections = document.headline ?? []
        guard !sections.isEmpty else { return "<p>This run has no headline sections.</p>" }
        var html = ""
        for section in sections {
            let mine = document.rows.filter { section.scenarios.contains($0.scenario) }
            guard !mine.isEmpty else { continue }
            html += "<h3>\(HTML.escape(section.title))</h3>\n"
            switch section.layout {
            case .groups:
                let comparison = GroupComparison(rows: mine)
                let baselines = comparison.candidates.filter { name in comparison.entries.contains { $0.ratios.contains { $0.baseline == name } } }
                let metric = GroupComparison.primaryQualityMetric
                let scored = comparison.candidates.filter { name in comparison.entries.contains { $0.quality[name]?[metric] != nil } }
                let table = comparison.entries.map { entry in
                    [entry.group, entry.speed["library"].map { Format.seconds(1 / $0) } ?? "-"]
                        + baselines.map { name in
                            guard let row = entry.ratios.first(where: { $0.baseline == name })?.row else { return "-" }
                            return ResultTable.ratioText(row) + (row.ratioInterval.map { " (\(Format.ratio($0.low))–\(Format.ratio($0.high)))" } ?? "")
                                + (row.passed == false ? " missed" : "")
                        }
                        + scored.map { name in entry.quality[name]?[metric].map { Format.significant($0) } ?? "-" }
                }
                html += HTML.table(
                    header: ["class", "library per item"] + baselines.map { "vs \($0)" } + scored.map { "\(metric): \($0)" },
                    rows: table, className: "groups"
                )
            case .rows:
                html += HTML.table(
                    header: ["case", "ours", "baseline", "theirs", "ratio", "95 % interval", "target", "result"],
                    rows: mine.map { row in
                        [row.caseName, Format.rate(row.throughput, unit: row.unit), row.baseline ?? "-", Format.rate(row.baselineThroughput, unit: row.unit),
                         ResultTable.ratioText(row), row.ratioInterval.map { Format.ratio($0.low) + "–" + Format.ratio($0.high) } ?? "-",
                         row.target ?? "-", row.isSkipped || row.isError ? row.note ?? "" : ResultTable.resultText(row)]
                    },
                    rowClasses: mine.map(Self.rowClass)
                )
            }
        }
        return html
    }

    /// Every quality metric the rows carry, one line per class and candidate.
    private func qualityMetrics(_ groups: GroupComparison) -> String {
        let metrics = Array(Set(groups.entries.flatMap { $0.quality.values.flatMap(\.keys) })).sorted()
        guard !metrics.isEmpty else { return "" }
        var lines: [[String]] = []
        for entry in groups.entries {
            for candidate in groups.candidates {
                guard let values = entry.quality[candidate] else { continue }
                lines.append([entry.group, candidate] + metrics.map { values[$0].map { Format.significant($0) } ?? "-" })
            }
        }
        return "<h3>Every quality figure per class</h3>\n" + HTML.table(header: ["class", "candidate"] + metrics, rows: lines, className: "quality")
    }

    private func misses() -> String {
        let missed = document.rows.filter { $0.passed == false }
        guard !missed.isEmpty else { return "<p>Every measured target was met.</p>" }
        return HTML.table(
            header: ["case", "measured", "target", "bound by", "action", "why"],
            rows: missed.map { row in
                let explanation = row.explanation
                return [row.key, explanation?.figure ?? ResultTable.ratioText(row), row.target ?? "-",
                        explanation.map { $0.bounds.isEmpty ? "nothing known" : $0.bounds.joined(separator: "; ") } ?? "-",
                        explanation?.action.rawValue ?? "-", explanation?.advice ?? "-"]
            },
            className: "misses",
            rowClasses: missed.map { "action-" + ($0.explanation?.action.rawValue ?? "investigate") }
        )
    }

    private func crops() -> String {
        let images = document.images ?? []
        guard !images.isEmpty else {
            return "<p>No crops in this run (the <code>thumbnail-quality</code> scenario writes them when the run has <code>--report</code>).</p>"
        }
        var html = ""
        for (image, data) in zip(images, imageData) {
            html += "<figure class=\"crop\"><figcaption><strong>\(HTML.escape(image.title))</strong>"
                + (image.caption.map { " — " + HTML.escape($0) } ?? "") + "</figcaption>"
            if let data {
                html += "<img alt=\"\(HTML.escape(image.title))\" src=\"data:image/png;base64,\(data.base64EncodedString())\">"
            } else {
                html += "<p class=\"warning\">missing: \(HTML.escape(image.path))</p>"
            }
            html += "</figure>\n"
        }
        return html
    }

    private func compared(_ comparison: RunComparison) -> String {
        var html = "<p>\(HTML.escape("Base: the run of \(comparison.baseStartedAt). " + comparison.summaryLine))</p>"
        html += comparison.warnings.map { "<p class=\"warning\">\(HTML.escape($0))</p>" }.joined()
        html += HTML.table(
            header: ["scenario / case", "base", "this run", "change", "verdict", "why"],
            rows: comparison.entries.map { entry in
                [entry.key, entry.base.map(ResultTable.ratioText) ?? "-", entry.current.map(ResultTable.ratioText) ?? "-",
                 entry.ratioChange.map { String(format: "%+.1f %%", $0 * 100) } ?? "-", entry.verdict.rawValue, entry.reason]
            },
            className: "compare",
            rowClasses: comparison.entries.map { "verdict-" + $0.verdict.rawValue }
        )
        return html
    }

    private func rows() -> String {
        HTML.table(
            header: ["scenario", "case", "throughput", "p50", "p90", "p99", "CPU/op", "peak RSS", "baseline", "base thru", "ratio", "target", "result", "note"],
            rows: document.rows.map { row in
                [row.scenario, row.caseName, Format.rate(row.throughput, unit: row.unit), Format.seconds(row.p50), Format.seconds(row.p90),
                 Format.seconds(row.p99), Format.seconds(row.cpuSeconds), Format.bytes(row.peakRSS), row.baseline ?? "-",
                 Format.rate(row.baselineThroughput, unit: row.unit), ResultTable.ratioText(row), row.target ?? "-",
                 ResultTable.resultText(row), row.note ?? ""]
            },
            className: "rows",
            rowClasses: document.rows.map(Self.rowClass)
        )
    }

    private static func rowClass(_ row: ResultRow) -> String {
        switch row.passed {
        case true?: "met"
        case false?: "missed"
        case nil: row.isError ? "error" : row.isSkipped ? "skipped" : ""
        }
    }

    private static let style = """
        body { font: 14px/1.45 "DejaVu Sans", Arial, sans-serif; color: #222; margin: 24px auto; max-width: 1140px; padding: 0 12px; }
        h1 { font-size: 22px; margin: 0 0 6px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; margin-top: 32px; } h3 { font-size: 15px; }
        .facts, .definition { color: #555; margin: 2px 0; } .tally { font-size: 16px; }
        .warning { background: #fff3e0; border-left: 4px solid #ef6c00; padding: 6px 10px; }
        nav a { color: #1565c0; }
        table { border-collapse: collapse; width: 100%; font-size: 12px; margin: 8px 0 16px; }
        th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
        th { background: #f3f3f3; }
        tr.missed td, tr.action-investigate td, tr.verdict-regression td { background: #ffebee; }
        tr.action-rerun td { background: #fff8e1; } tr.action-none td { background: #f5f5f5; }
        tr.error td, tr.skipped td { color: #777; }
        tr.verdict-improvement td { background: #e8f5e9; }
        svg { max-width: 100%; height: auto; display: block; margin: 8px 0; }
        figure.crop { margin: 12px 0; } figure.crop img { max-width: 100%; image-rendering: pixelated; border: 1px solid #ccc; }
        code { background: #f3f3f3; padding: 0 3px; }
        """
}
