/// One benchmark scenario: a group of cases, each measured against its
/// baseline in the same process.
///
/// A scenario builds its own rows; an error thrown out of ``run(in:)`` becomes
/// an error row and the run goes on with the next scenario.
protocol Scenario: Sendable {
    /// The name `--scenario` selects.
    var name: String { get }
    /// One line for `--scenario list`.
    var summary: String { get }
    /// Whether it runs when no `--scenario` is given (long or special ones opt out).
    var runsByDefault: Bool { get }
    /// Measures every case and returns one row per case.
    func run(in context: BenchmarkContext) async throws -> [ResultRow]
}

extension Scenario {
    var runsByDefault: Bool { true }
}
