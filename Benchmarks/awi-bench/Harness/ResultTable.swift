import Foundation

/// The rows of a run, rendered as a text table or JSON.
struct ResultTable: Sendable {
    var rows: [ResultRow] = []

    /// Targets met, targets measured, and rows that reported an error.
    var tally: (met: Int, measured: Int, errors: Int) {
        let judged = rows.compactMap(\.passed)
        let errors = rows.filter { $0.note?.hasPrefix("error:") == true }.count
        return (judged.filter { $0 }.count, judged.count, errors)
    }

    /// The one-line summary printed under the table.
    var summaryLine: String {
        let (met, measured, errors) = tally
        var line = "targets met: \(met)/\(measured)"
        let missed = rows.filter { $0.passed == false }.map { "\($0.scenario) \($0.caseName)" }
        if !missed.isEmpty { line += " (missed: " + missed.joined(separator: ", ") + ")" }
        if errors > 0 { line += "; \(errors) case\(errors == 1 ? "" : "s") failed to run" }
        return line
    }

    /// A fixed-width table, notes as numbered footnotes underneath.
    func render() -> String {
        let header = ["scenario", "case", "throughput", "p50", "p99", "CPU/op", "peak RSS", "baseline", "base thru", "ratio", "target", "result"]
        var notes: [String] = []
        var lines: [[String]] = [header]
        for row in rows {
            var caseName = row.caseName
            if let note = row.note {
                notes.append(note)
                caseName += " [\(notes.count)]"
            }
            let ratio = row.ratio.map { Format.ratio($0) + (row.basis == .cpu ? " cpu" : " wall") } ?? "-"
            let result: String
            switch row.passed {
            case true?: result = "pass"
            case false?: result = "FAIL"
            case nil:
                if row.note?.hasPrefix("error:") == true {
                    result = "error"
                } else if row.note?.hasPrefix("skipped:") == true {
                    result = "skip"
                } else {
                    result = "-"
                }
            }
            lines.append([
                row.scenario, caseName, Format.rate(row.throughput, unit: row.unit), Format.seconds(row.p50),
                Format.seconds(row.p99), Format.seconds(row.cpuSeconds), Format.bytes(row.peakRSS),
                row.baseline ?? "-", Format.rate(row.baselineThroughput, unit: row.unit), ratio,
                row.target ?? "-", result,
            ])
        }
        var widths = [Int](repeating: 0, count: header.count)
        for line in lines {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        // Names left-aligned, figures right-aligned.
        let leftAligned: Set<Int> = [0, 1, 7, 10, 11]
        func format(_ line: [String]) -> String {
            line.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return leftAligned.contains(index) ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        var output = [format(lines[0]), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        output += lines.dropFirst().map(format)
        if !notes.isEmpty {
            output.append("")
            output += notes.enumerated().map { "[\($0.offset + 1)] \($0.element)" }
        }
        return output.joined(separator: "\n")
    }

    /// The JSON document `--json FILE` writes: the rows plus what is needed
    /// to judge them (options, machine load before and after).
    func json(options: BenchmarkOptions, environment: RunEnvironment) throws -> Data {
        struct Document: Encodable {
            var tool = "awi-bench"
            var version = 1
            var environment: RunEnvironment
            var quick: Bool
            var durationScale: Double
            var scenarios: [String]
            var corpus: String?
            var ratioDefinition = "baseline time / our time on the row's basis clock (above 1 = faster than the baseline)"
            var rows: [ResultRow]
            var targetsMet: Int
            var targetsMeasured: Int
            var errors: Int
            var summary: String
        }
        let (met, measured, errors) = tally
        let document = Document(
            environment: environment, quick: options.quick, durationScale: options.durationScale,
            scenarios: options.scenarios, corpus: options.corpusDirectory, rows: rows,
            targetsMet: met, targetsMeasured: measured, errors: errors, summary: summaryLine
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(document)
    }
}
