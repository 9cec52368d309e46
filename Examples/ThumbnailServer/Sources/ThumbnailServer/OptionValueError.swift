/// A value a setting does not take; the parser adds where it came from.
struct OptionValueError: Error, Sendable {
    /// What the setting takes (`a whole number from 0 to 65535`).
    let expected: String
    init(_ expected: String) { self.expected = expected }
}
