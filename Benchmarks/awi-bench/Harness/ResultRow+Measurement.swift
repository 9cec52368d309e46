import AWIBenchResults

extension ResultRow {
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
        p90 = wall?.p90
        p99 = wall?.p99
        cpuSeconds = measurement.ours.cpuStatistics?.median
        if let ours = measurement.ours.median(basis), let theirs = measurement.baseline.median(basis), ours > 0, theirs > 0 {
            throughput = unitsPerOperation / ours
            baselineThroughput = unitsPerOperation / theirs
            ratio = theirs / ours
        }
        ratioInterval = measurement.ratioInterval(basis)
        if let target {
            self.target = target.text
            targetRatio = target.minimumRatio
            if let ratio { passed = target.isMet(byRatio: ratio) }
        }
    }

    /// A row for a scenario that could not run or failed half-way.
    static func failure(scenario: String, caseName: String, error: any Error) -> ResultRow {
        var row = ResultRow(scenario: scenario, caseName: caseName)
        row.note = (error is ScenarioSkipped ? "skipped: " : "error: ") + "\(error)"
        return row
    }
}
