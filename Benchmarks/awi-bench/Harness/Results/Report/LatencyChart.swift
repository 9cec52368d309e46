/// Latency percentiles per case: a line from the median (p50, filled dot)
/// to the 99th percentile (open dot) with the 90th as a tick, wall-clock
/// time per operation on a log axis.
enum LatencyChart {
    static let colour = "#6a1b9a"

    private static let labelWidth = 440.0
    private static let right = 1060.0
    private static let rowHeight = 18.0
    private static let top = 40.0

    /// The chart of every row with a p50 and a p99; `nil` when none has them.
    static func render(rows: [ResultRow]) -> String? {
        let timed = rows.filter { ($0.p50 ?? 0) > 0 && ($0.p99 ?? 0) > 0 }
        guard !timed.isEmpty else { return nil }
        let scale = LogScale(covering: timed.flatMap { [$0.p50!, $0.p99!] }, base: 10, start: labelWidth, end: right)
        var scenarios: [String] = []
        for row in timed where !scenarios.contains(row.scenario) { scenarios.append(row.scenario) }
        let height = top + Double(timed.count + scenarios.count) * rowHeight + 10
        var canvas = SVGCanvas(width: 1100, height: height)
        canvas.text("wall time per operation (log axis): ● p50  | p90  ○ p99", x: labelWidth, y: 14, size: 11, fill: "#555")
        for tick in scale.ticks(base: 10) {
            let x = scale.position(tick)
            canvas.line(x1: x, y1: top - 8, x2: x, y2: height - 6, stroke: "#ddd", className: "grid")
            canvas.text(Format.seconds(tick), x: x, y: top - 12, anchor: "middle", size: 10, fill: "#555")
        }
        var y = top
        for scenario in scenarios {
            canvas.text(scenario, x: 4, y: y + 13, size: 12, weight: "bold", className: "scenario")
            y += rowHeight
            for row in timed where row.scenario == scenario {
                let middle = y + rowHeight / 2
                let label = row.caseName.count > 62 ? String(row.caseName.prefix(61)) + "…" : row.caseName
                canvas.text(label, x: 16, y: middle + 4, size: 11, className: "case")
                let p50 = scale.position(row.p50!), p99 = scale.position(row.p99!)
                let title = "\(row.key): p50 \(Format.seconds(row.p50)), p90 \(Format.seconds(row.p90)), p99 \(Format.seconds(row.p99))"
                canvas.line(x1: p50, y1: middle, x2: p99, y2: middle, stroke: colour, width: 3, className: "span")
                if let p90 = row.p90, p90 > 0 {
                    let x = scale.position(p90)
                    canvas.line(x1: x, y1: middle - 5, x2: x, y2: middle + 5, stroke: colour, width: 2, className: "p90")
                }
                canvas.circle(x: p99, y: middle, radius: 4.5, fill: "#fff", stroke: colour, className: "p99", title: title)
                canvas.circle(x: p50, y: middle, radius: 5, fill: colour, className: "p50", title: title)
                canvas.text(Format.seconds(row.p50) + " · " + Format.seconds(row.p99), x: 1098, y: middle + 4, anchor: "end", size: 10, fill: "#555", className: "value")
                y += rowHeight
            }
        }
        return canvas.render(id: "chart-latency", label: "Latency percentiles per case")
    }
}
