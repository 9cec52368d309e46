/// Ratio bars per scenario against their targets: each row's ratio as a bar
/// from parity (1×) on a log axis, its interval as a whisker, its target as
/// a black tick; green when met, red when missed, blue with no target.
enum RatioChart {
    static let metColour = "#2e7d32"
    static let missedColour = "#c62828"
    static let untargetedColour = "#1565c0"

    private static let labelWidth = 440.0
    private static let right = 1060.0
    private static let rowHeight = 20.0
    private static let top = 40.0

    /// The chart of every row with a ratio, grouped by scenario; `nil` when no row has one.
    static func render(rows: [ResultRow]) -> String? {
        let measured = rows.filter { ($0.ratio ?? 0) > 0 }
        guard !measured.isEmpty else { return nil }
        let values = measured.flatMap { row in [row.ratio, row.ratioInterval?.low, row.ratioInterval?.high, row.targetRatio].compactMap { $0 } }
        let scale = LogScale(covering: values, including: [0.5, 2], base: 2, start: labelWidth, end: right)
        var scenarios: [String] = []
        for row in measured where !scenarios.contains(row.scenario) { scenarios.append(row.scenario) }
        let height = top + Double(measured.count + scenarios.count) * rowHeight + 10
        var canvas = SVGCanvas(width: 1100, height: height)
        canvas.text("ratio = baseline time / our time (log axis; right of 1× = faster than the baseline)", x: labelWidth, y: 14, size: 11, fill: "#555")
        for tick in scale.ticks(base: 2) {
            let x = scale.position(tick)
            canvas.line(x1: x, y1: top - 8, x2: x, y2: height - 6, stroke: tick == 1 ? "#444" : "#ddd", width: tick == 1 ? 1.5 : 1, className: "grid")
            canvas.text(Format.ratio(tick), x: x, y: top - 12, anchor: "middle", size: 10, fill: "#555")
        }
        var y = top
        for scenario in scenarios {
            canvas.text(scenario, x: 4, y: y + 14, size: 12, weight: "bold", className: "scenario")
            y += rowHeight
            for row in measured where row.scenario == scenario {
                draw(row, at: y, scale: scale, on: &canvas)
                y += rowHeight
            }
        }
        return canvas.render(id: "chart-ratios", label: "Ratio against the baseline per case, with targets")
    }

    private static func draw(_ row: ResultRow, at y: Double, scale: LogScale, on canvas: inout SVGCanvas) {
        guard let ratio = row.ratio else { return }
        let middle = y + rowHeight / 2
        let label = row.caseName.count > 62 ? String(row.caseName.prefix(61)) + "…" : row.caseName
        canvas.text(label, x: 16, y: middle + 4, size: 11, className: "case")
        let colour = row.passed == true ? metColour : row.passed == false ? missedColour : untargetedColour
        let state = row.passed == true ? "met" : row.passed == false ? "missed" : "untargeted"
        let parity = scale.position(1)
        let end = scale.position(ratio)
        var title = "\(row.key): \(ResultTable.ratioText(row))"
        if let interval = row.ratioInterval { title += ", 95 % interval \(Format.ratio(interval.low))–\(Format.ratio(interval.high))" }
        if let target = row.target { title += "; target \(target)" }
        canvas.rect(x: min(parity, end), y: middle - 6, width: abs(end - parity), height: 12, fill: colour, className: "bar \(state)", title: title)
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
        canvas.text(ResultTable.ratioText(row), x: 1098, y: middle + 4, anchor: "end", size: 10, fill: colour, className: "value")
    }
}
