/// What a case must achieve. A missed target is reported, never fatal: the
/// benchmark is a measurement, not a test.
enum Target: Sendable {
    /// Speed relative to the baseline (baseline time ÷ our time) of at least this.
    case ratioAtLeast(Double)
    /// A condition checked by the scenario itself, described for the table.
    case condition(String)

    /// Short text for the table's target column.
    var text: String {
        switch self {
        case .ratioAtLeast(let value): "≥ " + Format.ratio(value)
        case .condition(let text): text
        }
    }

    /// Whether `ratio` meets a ratio target (`nil` for conditions).
    func isMet(byRatio ratio: Double) -> Bool? {
        switch self {
        case .ratioAtLeast(let value): ratio >= value
        case .condition: nil
        }
    }
}
