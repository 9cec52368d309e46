/// Latency percentiles per case: a line from the median (p50, filled dot)
/// to the 99th percentile (open dot) with the 90th as a tick, wall-clock
/// time per operation on a log axis.
enum LatencyChart {
    static let colour = "#6a1b9a"

    /// The chart of every row with a p50 and a p99; `nil` when none has them.
    static func render(rows: [ResultRow]) -> String? {
        let timed = rows.filter { ($0.p50 ?? 0) > 0 && ($0.p99 ?? 0) > 0 }
        guard !timed.isEmpty else { return nil }
        let scale = LogScale(covering: timed.flatMap { [$0.p50 ?? 0, $0.p99 ?? 0] }, base: 10, start: CaseChart.labelWidth, end: CaseChart.right)
        var chart = CaseChart(rows: timed, rowHeight: 18, caption: "wall time per operation (log axis): ● p50  | p90  ○ p99")
        chart.axis(scale, base: 10, label: { Format.seconds($0) })
        chart.lines(value: { (Format.seconds($0.p50) + " · " + Format.seconds($0.p99), "#555") }) { row, middle, canvas in
            guard let p50 = row.p50, let p99 = row.p99 else { return }
            let title = "\(row.key): p50 \(Format.seconds(p50)), p90 \(Format.seconds(row.p90)), p99 \(Format.seconds(p99))"
            canvas.line(x1: scale.position(p50), y1: middle, x2: scale.position(p99), y2: middle, stroke: colour, width: 3, className: "span")
            if let p90 = row.p90, p90 > 0 {
                let x = scale.position(p90)
                canvas.line(x1: x, y1: middle - 5, x2: x, y2: middle + 5, stroke: colour, width: 2, className: "p90")
            }
            canvas.circle(x: scale.position(p99), y: middle, radius: 4.5, fill: "#fff", stroke: colour, className: "p99", title: title)
            canvas.circle(x: scale.position(p50), y: middle, radius: 5, fill: colour, className: "p50", title: title)
        }
        return chart.canvas.render(id: "chart-latency", label: "Latency percentiles per case")
    }
}
