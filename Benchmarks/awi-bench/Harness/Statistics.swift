/// Order statistics of a set of samples (seconds, or any unit).
///
/// Medians rather than means: one iteration descheduled by a compiler on the
/// other core must not move the figure.
struct Statistics: Sendable, Codable {
    /// Number of samples.
    let count: Int
    /// The 50th percentile.
    let median: Double
    /// The 99th percentile (nearest rank; with fewer than 100 samples this is the maximum or close to it).
    let p99: Double
    /// The smallest sample.
    let minimum: Double
    /// The arithmetic mean.
    let mean: Double

    /// Statistics of `samples`, or `nil` when there are none.
    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        median = Statistics.percentile(sorted, 0.5)
        p99 = Statistics.percentile(sorted, 0.99)
        minimum = sorted[0]
        mean = sorted.reduce(0, +) / Double(sorted.count)
    }

    /// Linear interpolation between closest ranks of an already sorted array.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        precondition(!sorted.isEmpty)
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }
}
