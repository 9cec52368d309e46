/// Order statistics of a set of samples (seconds, or any unit).
///
/// Medians rather than means: one iteration descheduled by a compiler on the
/// other core must not move the figure.
struct Statistics: Sendable, Codable {
    /// Number of samples.
    let count: Int
    /// The 50th percentile.
    let median: Double
    /// The 90th percentile.
    let p90: Double
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
        p90 = Statistics.percentile(sorted, 0.9)
        p99 = Statistics.percentile(sorted, 0.99)
        minimum = sorted[0]
        mean = sorted.reduce(0, +) / Double(sorted.count)
    }

    /// A distribution-free 95 % confidence interval of the median of `samples`:
    /// the order statistics at ranks n/2 ∓ 0.98·√n (the normal approximation
    /// to the binomial), which with fewer than 6 samples are the extremes.
    static func medianInterval(_ samples: [Double]) -> (low: Double, high: Double)? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let n = Double(sorted.count)
        let spread = 0.98 * n.squareRoot()
        let lower = max(1, Int((n / 2 - spread).rounded(.down)))
        let upper = min(sorted.count, Int((1 + n / 2 + spread).rounded(.up)))
        return (sorted[lower - 1], sorted[upper - 1])
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
