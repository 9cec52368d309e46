import AWIBenchResults

/// What every scenario gets: the options, the corpus, the progress display, the server.
struct BenchmarkContext: Sendable {
    let options: BenchmarkOptions
    let corpus: Corpus
    let progress: ProgressReporter
    /// The embedded HTTP server, started by the first scenario that asks.
    let server: BenchmarkServer

    /// `plan` adjusted for `--quick` and `--duration-scale`.
    func plan(warmup: Int, minIterations: Int, maxIterations: Int, budget: Double) -> MeasurementPlan {
        MeasurementPlan(warmup: warmup, minIterations: minIterations, maxIterations: maxIterations, budget: budget)
            .scaled(by: options)
    }

    /// Runs one case: resets the peak-RSS counter, tells the progress display,
    /// and turns an error into an error row so the other cases still run.
    func measureCase(scenario: String, caseName: String, _ body: () async throws -> ResultRow) async -> ResultRow {
        progress.beginCase(caseName)
        ResourceUsage.resetPeakRSS()
        var row: ResultRow
        do {
            row = try await body()
        } catch {
            row = .failure(scenario: scenario, caseName: caseName, error: error)
        }
        if row.peakRSS == nil { row.peakRSS = ResourceUsage.peakRSSBytes() }
        var parts: [String] = []
        if let ratio = row.ratio { parts.append("ratio " + Format.ratio(ratio)) }
        if let passed = row.passed { parts.append(passed ? "pass" : "FAIL") }
        if let note = row.note, note.hasPrefix("error:") { parts.append(String(note.prefix(120))) }
        let summary = parts.isEmpty ? "done" : parts.joined(separator: ", ")
        progress.endCase(summary)
        return row
    }
}
