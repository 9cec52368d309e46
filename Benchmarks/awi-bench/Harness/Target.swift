import AWIBenchResults

/// What a case must achieve. A missed target is reported, never fatal: the
/// benchmark is a measurement, not a test.
enum Target: Sendable {
    /// Speed relative to the baseline (baseline time ÷ our time) of at least this.
    case ratioAtLeast(Double)
    /// Our time at most this multiple of the baseline's (a ratio of at least its inverse).
    case timeAtMost(Double)
    /// A condition checked by the scenario itself, described for the table.
    case condition(String)

    /// Short text for the table's target column.
    var text: String {
        switch self {
        case .ratioAtLeast(let value): "≥ " + Format.ratio(value)
        case .timeAtMost(let value): "≥ " + Format.ratio(1 / value) + " (time ≤ " + Format.ratio(value) + ")"
        case .condition(let text): text
        }
    }

    /// The smallest ratio that meets the target (`nil` for conditions).
    var minimumRatio: Double? {
        switch self {
        case .ratioAtLeast(let value): value
        case .timeAtMost(let value): 1 / value
        case .condition: nil
        }
    }

    /// Whether `ratio` meets a ratio target (`nil` for conditions).
    func isMet(byRatio ratio: Double) -> Bool? {
        minimumRatio.map { ratio >= $0 }
    }
}
