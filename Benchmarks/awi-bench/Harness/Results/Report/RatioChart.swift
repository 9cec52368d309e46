/// Ratio bars per scenario against their targets: each row's ratio as a bar
/// from parity (1×) on a log axis, its interval as a whisker, its target as
/// a black tick; green when met, red when missed, blue with no target.
enum RatioChart {
    static let metColour = "#2e7d32"
    static let missedColour = "#c62828"
    static let untargetedColour = "#1565c0"

    /// The chart of every row with a ratio, grouped by scenario; `nil` when no row has one.
    static func render(rows: [ResultRow]) -> String? {
        let measured = rows.filter { ($0.ratio ?? 0) > 0 }
        guard !measured.isEmpty else { return nil }
        let values = measured.flatMap { row in [row.ratio, row.ratioInterval?.low, row.ratioInterval?.high, row.targetRatio].compactMap { $0 } }
        let scale = LogScale(covering: values, including: [0.5, 2], base: 2, start: CaseChart.labelWidth, end: CaseChart.right)
        var chart = CaseChart(rows: measured, rowHeight: 20, caption: "ratio = baseline time / our time (log axis; right of 1× = faster than the baseline)")
        chart.axis(scale, base: 2, label: { Format.ratio($0) }, emphasised: [1])
        chart.lines(value: { (ResultTable.ratioText($0), colour(of: $0)) }) { row, middle, canvas in
            draw(row, at: middle, scale: scale, on: &canvas)
        }
        return chart.canvas.render(id: "chart-ratios", label: "Ratio against the baseline per case, with targets")
    }

    private static func colour(of row: ResultRow) -> String {
        row.passed == true ? metColour : row.passed == false ? missedColour : untargetedColour
    }

    private static func draw(_ row: ResultRow, at middle: Double, scale: LogScale, on canvas: inout SVGCanvas) {
        guard let ratio = row.ratio else { return }
        let state = row.passed == true ? "met" : row.passed == false ? "missed" : "untargeted"
        let parity = scale.position(1)
        let end = scale.position(ratio)
        var title = "\(row.key): \(ResultTable.ratioText(row))"
        if let interval = row.ratioInterval { title += ", 95 % interval \(Format.ratio(interval.low))–\(Format.ratio(interval.high))" }
        if let target = row.target { title += "; target \(target)" }
        canvas.rect(x: min(parity, end), y: middle - 6, width: abs(end - parity), height: 12, fill: colour(of: row), className: "bar \(state)", title: title)
        if let interval = row.ratioInterval {
            let low = scale.position(interval.low), high = scale.position(interval.high)
            canvas.line(x1: low, y1: middle, x2: high, y2: middle, stroke: "#222", width: 1.2, className: "interval")
            canvas.line(x1: low, y1: middle - 4, x2: low, y2: middle + 4, stroke: "#222", width: 1.2, className: "interval")
            canvas.line(x1: high, y1: middle - 4, x2: high, y2: middle + 4, stroke: "#222", width: 1.2, className: "interval")
        }
        if let target = row.targetRatio {
            let x = scale.position(target)
            canvas.line(x1: x, y1: middle - 9, x2: x, y2: middle + 9, stroke: "#000", width: 2.5, className: "target")
        }
    }
}
