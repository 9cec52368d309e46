/// The frame the per-case charts share: one line per case under a bold
/// line per scenario, case names on the left, a log axis across the top
/// with its grid, and a figure at the right end of each line.
struct CaseChart {
    static let labelWidth = 440.0
    static let right = 1060.0
    static let top = 40.0

    let rows: [ResultRow]
    let rowHeight: Double
    private(set) var canvas: SVGCanvas
    private let scenarios: [String]

    /// A frame for `rows` (grouped by scenario, in their order), with `caption` over the axis.
    init(rows: [ResultRow], rowHeight: Double, caption: String) {
        var scenarios: [String] = []
        for row in rows where !scenarios.contains(row.scenario) { scenarios.append(row.scenario) }
        self.rows = rows
        self.rowHeight = rowHeight
        self.scenarios = scenarios
        canvas = SVGCanvas(width: 1100, height: Self.top + Double(rows.count + scenarios.count) * rowHeight + 10)
        canvas.text(caption, x: Self.labelWidth, y: 14, size: 11, fill: "#555")
    }

    /// The axis: a grid line and a label (`label(tick)`) at every tick of `scale`; `emphasised` ticks drawn darker.
    mutating func axis(_ scale: LogScale, base: Double, label: (Double) -> String, emphasised: Set<Double> = []) {
        for tick in scale.ticks(base: base) {
            let x = scale.position(tick)
            let strong = emphasised.contains(tick)
            canvas.line(x1: x, y1: Self.top - 8, x2: x, y2: canvas.height - 6, stroke: strong ? "#444" : "#ddd", width: strong ? 1.5 : 1, className: "grid")
            canvas.text(label(tick), x: x, y: Self.top - 12, anchor: "middle", size: 10, fill: "#555")
        }
    }

    /// Draws the scenario and case labels and calls `draw` with each row and
    /// the middle of its line; `value` is the text at the line's right end.
    mutating func lines(value: (ResultRow) -> (text: String, colour: String), draw: (ResultRow, Double, inout SVGCanvas) -> Void) {
        var y = Self.top
        for scenario in scenarios {
            canvas.text(scenario, x: 4, y: y + rowHeight * 0.7, size: 12, weight: "bold", className: "scenario")
            y += rowHeight
            for row in rows where row.scenario == scenario {
                let middle = y + rowHeight / 2
                let label = row.caseName.count > 62 ? String(row.caseName.prefix(61)) + "…" : row.caseName
                canvas.text(label, x: 16, y: middle + 4, size: 11, className: "case")
                draw(row, middle, &canvas)
                let (text, colour) = value(row)
                canvas.text(text, x: 1098, y: middle + 4, anchor: "end", size: 10, fill: colour, className: "value")
                y += rowHeight
            }
        }
    }
}
