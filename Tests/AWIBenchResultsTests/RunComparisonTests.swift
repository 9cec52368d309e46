import AWIBenchResults
import Testing

@Suite("RunComparison: changes beyond both runs' noise")
struct RunComparisonTests {
    private static func row(_ caseName: String, ratio: Double, interval: (Double, Double)?, passed: Bool? = nil) -> ResultRow {
        var row = ResultRow(scenario: "decode-full", caseName: caseName)
        row.ratio = ratio
        row.basis = .cpu
        row.ratioInterval = interval.map { ClosedInterval($0.0, $0.1) }
        row.passed = passed
        return row
    }

    private static func document(_ rows: [ResultRow]) -> BenchmarkDocument {
        BenchmarkDocument(
            environment: RunEnvironment(startedAt: "2026-01-01T00:00:00Z", cores: 2, loadAverageAtStart: 0.5, loadAverageAtEnd: 0.6),
            quick: false, durationScale: 1, suites: ["headline"], scenarios: ["decode-full"], corpus: nil,
            rows: rows, headline: [], images: []
        )
    }

    @Test("apart intervals are a regression or an improvement, overlapping ones are noise, whatever the size of the change")
    func verdicts() {
        let base = Self.document([
            Self.row("slower", ratio: 1.00, interval: (0.98, 1.02)),
            Self.row("faster", ratio: 1.00, interval: (0.98, 1.02)),
            Self.row("noisy", ratio: 1.00, interval: (0.80, 1.20)),
            Self.row("no interval", ratio: 1.00, interval: nil, passed: true),
            Self.row("gone", ratio: 1.00, interval: (0.9, 1.1)),
        ])
        let current = Self.document([
            Self.row("slower", ratio: 0.95, interval: (0.94, 0.97)),
            Self.row("faster", ratio: 1.05, interval: (1.03, 1.07)),
            Self.row("noisy", ratio: 0.85, interval: (0.70, 0.99)),
            Self.row("no interval", ratio: 0.90, interval: nil, passed: false),
            Self.row("new", ratio: 2, interval: (1.9, 2.1)),
        ])
        let comparison = RunComparison(base: base, current: current)
        let verdicts = Dictionary(uniqueKeysWithValues: comparison.entries.map { ($0.key, $0.verdict) })
        #expect(verdicts["decode-full / slower"] == .regression)
        #expect(verdicts["decode-full / faster"] == .improvement)
        // -15 % but inside the base's noise: not a regression.
        #expect(verdicts["decode-full / noisy"] == .unchanged)
        // No interval: judged by the target, met before and missed now.
        #expect(verdicts["decode-full / no interval"] == .regression)
        #expect(verdicts["decode-full / new"] == .added)
        #expect(verdicts["decode-full / gone"] == .removed)
        let slower = comparison.entries.first { $0.key == "decode-full / slower" }
        #expect(abs((slower?.ratioChange ?? 0) - -0.05) < 1e-9)
        #expect(comparison.render().contains("REGRESSION"))
        #expect(comparison.summaryLine.hasPrefix("compared: 2 regressions, 1 improvement, 1 unchanged"))
    }
}
