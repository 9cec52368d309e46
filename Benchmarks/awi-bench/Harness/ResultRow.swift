/// One line of the result table (and one object of the JSON output).
///
/// Times are seconds per operation; what an operation is (one decode, one
/// round of 1,000 fetches) is said by ``unit`` and ``note``. The ratio is
/// always *speed relative to the baseline*: baseline time ÷ our time on
/// ``basis``, so above 1 means faster than the baseline.
struct ResultRow: Sendable, Codable {
    var scenario: String
    var caseName: String
    /// Operations (or units: megapixels, megabytes) per second of ``basis`` time.
    var throughput: Double?
    /// What ``throughput`` counts per second: "MP/s", "MB/s", "req/s", "hits/s".
    var unit: String?
    /// Median wall seconds per operation.
    var p50: Double?
    /// 99th-percentile wall seconds per operation.
    var p99: Double?
    /// Median CPU seconds per operation.
    var cpuSeconds: Double?
    /// Peak resident set size during the case, bytes.
    var peakRSS: Int?
    /// What the baseline is.
    var baseline: String?
    /// The baseline's throughput, in ``unit``.
    var baselineThroughput: Double?
    /// Baseline time ÷ our time.
    var ratio: Double?
    /// The clock ``ratio`` and ``throughput`` are computed on.
    var basis: TimeBasis?
    /// What the case must achieve, as text.
    var target: String?
    /// Whether the target was met (`nil`: no target, or not measurable).
    var passed: Bool?
    /// Timed rounds per side.
    var iterations: Int?
    /// Anything the reader needs to interpret the row (or the error that stopped it).
    var note: String?

    init(scenario: String, caseName: String) {
        self.scenario = scenario
        self.caseName = caseName
    }

    /// A row for a comparison measured by ``InterleavedMeasurement``.
    ///
    /// - Parameters:
    ///   - unitsPerOperation: how many `unit`s one operation handles (megapixels of a decode, 1 for requests).
    init(
        scenario: String,
        caseName: String,
        measurement: InterleavedMeasurement,
        unitsPerOperation: Double,
        unit: String,
        basis: TimeBasis,
        baseline: String,
        target: Target?
    ) {
        self.init(scenario: scenario, caseName: caseName)
        self.unit = unit
        self.basis = basis
        self.baseline = baseline
        self.iterations = measurement.ours.count
        let wall = measurement.ours.wallStatistics
        p50 = wall?.median
        p99 = wall?.p99
        cpuSeconds = measurement.ours.cpuStatistics?.median
        if let ours = measurement.ours.median(basis), let theirs = measurement.baseline.median(basis), ours > 0, theirs > 0 {
            throughput = unitsPerOperation / ours
            baselineThroughput = unitsPerOperation / theirs
            ratio = theirs / ours
        }
        if let target {
            self.target = target.text
            if let ratio { passed = target.isMet(byRatio: ratio) }
        }
    }

    /// A row for a scenario that could not run or failed half-way.
    static func failure(scenario: String, caseName: String, error: any Error) -> ResultRow {
        var row = ResultRow(scenario: scenario, caseName: caseName)
        row.note = (error is ScenarioSkipped ? "skipped: " : "error: ") + "\(error)"
        return row
    }

    private enum CodingKeys: String, CodingKey {
        case scenario, caseName = "case", throughput, unit, p50, p99, cpuSeconds, peakRSS, baseline,
            baselineThroughput, ratio, basis, target, passed, iterations, note
    }
}
