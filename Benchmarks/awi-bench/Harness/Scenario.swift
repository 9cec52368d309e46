import AWIBenchResults

/// One benchmark scenario: a group of cases, each measured against its
/// baseline in the same process.
///
/// A scenario builds its own rows; an error thrown out of ``run(in:)`` becomes
/// an error row and the run goes on with the next scenario. Its area and
/// whether the default run measures it are the registry's
/// (``ScenarioRegistry``); what bounds its targets is ``TargetBounds``'.
protocol Scenario: Sendable {
    /// The name `--scenario` selects.
    var name: String { get }
    /// One line for `--list`.
    var summary: String { get }
    /// Measures every case and returns one row per case.
    func run(in context: BenchmarkContext) async throws -> [ResultRow]
}
