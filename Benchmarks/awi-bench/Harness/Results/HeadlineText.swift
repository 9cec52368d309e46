/// The headline as text: one short table per section, the figures a reader
/// came for (our speed against the baseline measured beside it, its
/// interval, the target), without the full table's every column.
public enum HeadlineText {
    /// `sections` over `rows`; a section none of whose scenarios ran is left out.
    public static func render(sections: [HeadlineSection], rows: [ResultRow]) -> String {
        var output: [String] = []
        for section in sections {
            let mine = rows.filter { section.scenarios.contains($0.scenario) }
            guard !mine.isEmpty else { continue }
            output.append("== \(section.title) ==")
            let measured = mine.filter { !$0.isSkipped && !$0.isError }
            switch section.layout {
            case .groups:
                // Rows without a group (the quality per decode scale) are in the full table.
                let table = GroupComparison(rows: measured, scenarios: section.scenarios).render()
                if !table.isEmpty { output.append(table) }
            case .rows:
                if !measured.isEmpty { output += rowTable(measured) }
            }
            for row in mine where row.isSkipped || row.isError {
                output.append("\(row.scenario): \(row.note ?? "")")
            }
            output.append("")
        }
        return output.joined(separator: "\n")
    }

    private static func rowTable(_ rows: [ResultRow]) -> [String] {
        var lines = [["case", "ours", "baseline", "theirs", "ratio", "95 % interval", "target", "result"]]
        for row in rows {
            lines.append([
                row.caseName, Format.rate(row.throughput, unit: row.unit), row.baseline ?? "-",
                Format.rate(row.baselineThroughput, unit: row.unit), ResultTable.ratioText(row),
                row.ratioInterval.map { Format.ratio($0.low) + "–" + Format.ratio($0.high) } ?? "-",
                row.target ?? "-", ResultTable.resultText(row),
            ])
        }
        return ResultTable.align(lines, leftAligned: [0, 2, 6, 7])
    }
}
