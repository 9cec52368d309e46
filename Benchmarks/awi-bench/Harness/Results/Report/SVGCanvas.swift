import Foundation

/// An SVG drawing built element by element, rendered inline into the HTML
/// page (no external files: the report opens offline).
struct SVGCanvas {
    let width: Double
    private(set) var height: Double
    private var elements: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Grows the canvas to at least `height`.
    mutating func extend(to height: Double) {
        self.height = max(self.height, height)
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, className: String, title: String? = nil) {
        elements.append(
            "<rect class=\"\(className)\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(max(width, 0)))\" "
                + "height=\"\(Self.number(max(height, 0)))\" fill=\"\(fill)\">\(Self.title(title))</rect>"
        )
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, className: String = "", dashed: Bool = false) {
        elements.append(
            "<line class=\"\(className)\" x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" y2=\"\(Self.number(y2))\" "
                + "stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"" + (dashed ? " stroke-dasharray=\"4 3\"" : "") + "/>"
        )
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String, stroke: String? = nil, className: String, title: String? = nil) {
        elements.append(
            "<circle class=\"\(className)\" cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"\(Self.number(radius))\" fill=\"\(fill)\""
                + (stroke.map { " stroke=\"\($0)\" stroke-width=\"1.5\"" } ?? "") + ">\(Self.title(title))</circle>"
        )
    }

    /// Text; `anchor` is `start`, `middle` or `end`.
    mutating func text(_ text: String, x: Double, y: Double, anchor: String = "start", size: Double = 12, weight: String = "normal", fill: String = "#222", className: String = "") {
        elements.append(
            "<text class=\"\(className)\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"\(anchor)\" font-size=\"\(Self.number(size))\" "
                + "font-weight=\"\(weight)\" fill=\"\(fill)\">\(HTML.escape(text))</text>"
        )
    }

    /// The `<svg>` element, labelled for screen readers by `label`.
    func render(id: String, label: String) -> String {
        "<svg id=\"\(id)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"\(HTML.escape(label))\" "
            + "viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" "
            + "font-family=\"DejaVu Sans, Arial, sans-serif\">\n" + elements.joined(separator: "\n") + "\n</svg>"
    }

    private static func title(_ text: String?) -> String {
        text.map { "<title>\(HTML.escape($0))</title>" } ?? ""
    }

    /// Coordinates with at most two decimals (small files, stable output).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.2f", rounded)
    }
}
