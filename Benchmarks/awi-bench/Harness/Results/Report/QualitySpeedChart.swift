import Foundation

/// Quality against speed per class: one panel per group with a speed row and
/// a quality row, each candidate (the library, pyvips, Pillow, …) a dot at
/// its throughput (log axis, CPU clock) and its primary quality metric.
/// Up and to the right is better. Candidates with a quality figure and no
/// speed figure (the library's `.area` route) are listed under the panel.
enum QualitySpeedChart {
    /// Colours of the candidates the scenarios name today; others are grey.
    static let colours = ["library": "#1565c0", "pyvips": "#ef6c00", "pillow": "#2e7d32"]
    static let otherColour = "#757575"

    private static let panelWidth = 355.0
    private static let panelHeight = 250.0
    private static let perRow = 3

    /// The panels, or `nil` when no group has both speed and quality.
    static func render(comparison: GroupComparison) -> String? {
        let metric = GroupComparison.primaryQualityMetric
        let groups = comparison.entries.filter { entry in
            entry.speed.keys.contains { entry.quality[$0]?[metric] != nil }
        }
        guard !groups.isEmpty else { return nil }
        let rows = (groups.count + perRow - 1) / perRow
        var canvas = SVGCanvas(width: 1100, height: 30 + Double(rows) * (panelHeight + 40))
        canvas.text("x: \(groups.first?.unit ?? "items/s") on the CPU clock, one core (log axis); y: \(metric) (higher is better)", x: 8, y: 16, size: 11, fill: "#555")
        for (index, entry) in groups.enumerated() {
            let left = 8 + Double(index % perRow) * (panelWidth + 10)
            let top = 30 + Double(index / perRow) * (panelHeight + 40)
            panel(entry, comparison: comparison, left: left, top: top, on: &canvas)
        }
        return canvas.render(id: "chart-quality-speed", label: "Quality against speed per class")
    }

    private static func panel(_ entry: GroupComparison.Entry, comparison: GroupComparison, left: Double, top: Double, on canvas: inout SVGCanvas) {
        let metric = GroupComparison.primaryQualityMetric
        let plotted = comparison.candidates.compactMap { name -> (String, Double, Double)? in
            guard let speed = entry.speed[name], let quality = entry.quality[name]?[metric] else { return nil }
            return (name, speed, quality)
        }
        let x0 = left + 40, x1 = left + panelWidth - 14, y0 = top + 24, y1 = top + panelHeight - 34
        canvas.rect(x: left, y: top, width: panelWidth, height: panelHeight, fill: "#fafafa", className: "panel")
        canvas.text(entry.group, x: left + 8, y: top + 16, size: 12, weight: "bold", className: "group")
        let speeds = scaleSpeeds(plotted.map(\.1), from: x0, to: x1)
        let qualities = plotted.map(\.2)
        let floor = ((qualities.min() ?? 0) - 5).rounded(.down)
        let ceiling = min(100, ((qualities.max() ?? 100) + 3).rounded(.up))
        func y(_ value: Double) -> Double { y1 - (value - floor) / max(ceiling - floor, 1) * (y1 - y0) }
        for tick in stride(from: floor, through: ceiling, by: max(1, ((ceiling - floor) / 4).rounded())) {
            canvas.line(x1: x0, y1: y(tick), x2: x1, y2: y(tick), stroke: "#e3e3e3", className: "grid")
            canvas.text(Format.significant(tick), x: x0 - 4, y: y(tick) + 4, anchor: "end", size: 9, fill: "#555")
        }
        for tick in speeds.ticks(base: 2) {
            canvas.line(x1: speeds.position(tick), y1: y0, x2: speeds.position(tick), y2: y1, stroke: "#e3e3e3", className: "grid")
            canvas.text(Format.significant(tick), x: speeds.position(tick), y: y1 + 14, anchor: "middle", size: 9, fill: "#555")
        }
        canvas.text("\(entry.unit ?? "items/s"), CPU clock", x: (x0 + x1) / 2, y: y1 + 27, anchor: "middle", size: 9, fill: "#555")
        for (name, speed, quality) in plotted {
            let colour = colours[name] ?? otherColour
            let x = speeds.position(speed), yy = y(quality)
            let title = "\(entry.group), \(name): \(Format.rate(speed, unit: entry.unit)), \(metric) \(Format.significant(quality))"
            canvas.circle(x: x, y: yy, radius: 6, fill: colour, className: "point \(name.replacingOccurrences(of: " ", with: "-"))", title: title)
            canvas.text(name, x: x + 9, y: yy + 4, size: 11, fill: colour, className: "point-label")
        }
        let unplotted = comparison.candidates.filter { name in entry.quality[name]?[metric] != nil && entry.speed[name] == nil }
        if !unplotted.isEmpty {
            let text = unplotted.map { "\($0) \(Format.significant(entry.quality[$0]![metric]!))" }.joined(separator: ", ")
            canvas.text("no speed figure: " + text, x: left + 8, y: top + panelHeight + 14, size: 10, fill: "#555")
        }
    }

    private static func scaleSpeeds(_ values: [Double], from start: Double, to end: Double) -> LogScale {
        LogScale(covering: values, base: 2, start: start, end: end)
    }
}
