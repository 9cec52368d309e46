/// The rows of a run as text: the fixed-width table, the missed targets
/// explained, and the one-line tally.
public struct ResultTable: Sendable {
    /// The rows, in the order they ran.
    public var rows: [ResultRow]

    /// A table of `rows`.
    public init(rows: [ResultRow] = []) {
        self.rows = rows
    }

    /// Targets met, targets measured, and rows that reported an error.
    public var tally: (met: Int, measured: Int, errors: Int) {
        let judged = rows.compactMap(\.passed)
        return (judged.filter { $0 }.count, judged.count, rows.filter(\.isError).count)
    }

    /// The one-line summary printed last.
    public var summaryLine: String {
        let (met, measured, errors) = tally
        var line = "targets met: \(met)/\(measured)"
        let missed = rows.filter { $0.passed == false }
        if !missed.isEmpty {
            let investigate = missed.filter { $0.explanation?.action == .investigate }.count
            let rerun = missed.filter { $0.explanation?.action == .rerun }.count
            line += " (\(missed.count) missed, explained above: \(investigate) to investigate, \(rerun) to rerun, "
                + "\(missed.count - investigate - rerun) at a known bound)"
        }
        if errors > 0 { line += "; \(errors) case\(errors == 1 ? "" : "s") failed to run" }
        return line
    }

    /// Every missed target with its explanation, numbered; empty when none missed.
    public func renderMisses() -> String {
        let missed = rows.filter { $0.passed == false }
        guard !missed.isEmpty else { return "" }
        var output = ["Missed targets (\(missed.count)):"]
        for (index, row) in missed.enumerated() {
            output.append("\(index + 1). \(row.key)")
            let lines = row.explanation?.lines ?? ["measured \(row.ratio.map { Format.ratio($0) } ?? "-"); target \(row.target ?? "-")"]
            output += lines.map { "     " + $0 }
        }
        return output.joined(separator: "\n")
    }

    /// A fixed-width table, notes as numbered footnotes underneath.
    public func render() -> String {
        let header = ["scenario", "case", "throughput", "p50", "p99", "CPU/op", "peak RSS", "baseline", "base thru", "ratio", "target", "result"]
        var notes: [String] = []
        var lines: [[String]] = [header]
        for row in rows {
            var caseName = row.caseName
            if let note = row.note {
                notes.append(note)
                caseName += " [\(notes.count)]"
            }
            lines.append([
                row.scenario, caseName, Format.rate(row.throughput, unit: row.unit), Format.seconds(row.p50),
                Format.seconds(row.p99), Format.seconds(row.cpuSeconds), Format.bytes(row.peakRSS),
                row.baseline ?? "-", Format.rate(row.baselineThroughput, unit: row.unit), Self.ratioText(row),
                row.target ?? "-", Self.resultText(row),
            ])
        }
        var output = Self.align(lines, leftAligned: [0, 1, 7, 10, 11])
        if !notes.isEmpty {
            output.append("")
            output += notes.enumerated().map { "[\($0.offset + 1)] \($0.element)" }
        }
        return output.joined(separator: "\n")
    }

    /// The ratio with its clock ("1.03× cpu"), or "-".
    public static func ratioText(_ row: ResultRow) -> String {
        row.ratio.map { Format.ratio($0) + (row.basis == .cpu ? " cpu" : " wall") } ?? "-"
    }

    /// pass, FAIL, error, skip or "-".
    public static func resultText(_ row: ResultRow) -> String {
        switch row.passed {
        case true?: "pass"
        case false?: "FAIL"
        case nil: row.isError ? "error" : row.isSkipped ? "skip" : "-"
        }
    }

    /// `lines` as columns two spaces apart, the header underlined; columns in
    /// `leftAligned` (names) flush left, the others (figures) flush right.
    public static func align(_ lines: [[String]], leftAligned: Set<Int>) -> [String] {
        guard let header = lines.first else { return [] }
        var widths = [Int](repeating: 0, count: header.count)
        for line in lines {
            for (index, cell) in line.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func format(_ line: [String]) -> String {
            line.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return leftAligned.contains(index) ? cell + padding : padding + cell
            }.joined(separator: "  ").trailingSpacesRemoved
        }
        return [format(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
            + lines.dropFirst().map(format)
    }
}

extension String {
    /// The string without spaces at its end (a left-aligned last column pads them).
    var trailingSpacesRemoved: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
