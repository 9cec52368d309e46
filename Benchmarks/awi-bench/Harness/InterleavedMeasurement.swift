import AWIBenchResults

/// Runs an operation and its baseline alternately in the same process.
///
/// After the warm-up, round *i* runs ours then the baseline when *i* is even
/// and the baseline then ours when it is odd (A B B A A B …): a drift in
/// machine load, CPU frequency or cache state lands on both sides equally, and
/// neither always runs on the other's warm caches.
struct InterleavedMeasurement: Sendable {
    /// Samples of the library's side.
    var ours = SampleSeries()
    /// Samples of the baseline.
    var baseline = SampleSeries()

    /// The run's own noise around the ratio on `basis`: a 95 % bootstrap
    /// interval over the rounds, each round's pair of samples drawn together
    /// (see ``Statistics/pairedRatioInterval(ours:theirs:resamples:)``).
    func ratioInterval(_ basis: TimeBasis) -> ClosedInterval? {
        let ours = basis == .cpu ? self.ours.cpu : self.ours.wall
        let theirs = basis == .cpu ? baseline.cpu : baseline.wall
        return Statistics.pairedRatioInterval(ours: ours, theirs: theirs).map { ClosedInterval($0.low, $0.high) }
    }

    /// Measures `ours` against `baseline` under `plan`, reporting progress.
    ///
    /// Each closure times itself and returns its ``Sample`` so it can choose the
    /// clock (``Sample/onThread(_:)`` or ``Sample/inProcess(_:)``) and keep its
    /// set-up out of the timing.
    static func run(
        plan: MeasurementPlan,
        progress: ProgressReporter,
        ours: () async throws -> Sample,
        baseline: () async throws -> Sample
    ) async throws -> InterleavedMeasurement {
        for _ in 0..<plan.warmup {
            try Task.checkCancellation()
            _ = try await ours()
            _ = try await baseline()
        }
        var result = InterleavedMeasurement()
        let start = ResourceUsage.wallSeconds()
        var round = 0
        while round < plan.maxIterations {
            let elapsed = ResourceUsage.wallSeconds() - start
            if round >= plan.minIterations && elapsed >= plan.budget { break }
            try Task.checkCancellation()
            if round.isMultiple(of: 2) {
                result.ours.append(try await ours())
                result.baseline.append(try await baseline())
            } else {
                result.baseline.append(try await baseline())
                result.ours.append(try await ours())
            }
            round += 1
            let byCount = Double(round) / Double(plan.maxIterations)
            let byTime = round >= plan.minIterations ? elapsed / max(plan.budget, 1e-9) : 0
            progress.update(fraction: min(1, max(byCount, byTime)))
        }
        return result
    }

    /// Measures one operation alone (no baseline), with the same bounds.
    static func runAlone(
        plan: MeasurementPlan,
        progress: ProgressReporter,
        _ operation: () async throws -> Sample
    ) async throws -> SampleSeries {
        for _ in 0..<plan.warmup {
            try Task.checkCancellation()
            _ = try await operation()
        }
        var series = SampleSeries()
        let start = ResourceUsage.wallSeconds()
        while series.count < plan.maxIterations {
            let elapsed = ResourceUsage.wallSeconds() - start
            if series.count >= plan.minIterations && elapsed >= plan.budget { break }
            try Task.checkCancellation()
            series.append(try await operation())
            let byCount = Double(series.count) / Double(plan.maxIterations)
            let byTime = series.count >= plan.minIterations ? elapsed / max(plan.budget, 1e-9) : 0
            progress.update(fraction: min(1, max(byCount, byTime)))
        }
        return series
    }
}
