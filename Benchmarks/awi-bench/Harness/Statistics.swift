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

    /// A 95 % interval of `median(theirs) / median(ours)`, the ratio the
    /// table shows: the 2.5th and 97.5th percentiles of that ratio over
    /// bootstrap resamples of the rounds, each round's two samples drawn
    /// together (they ran back to back, so they share the round's machine
    /// state). Seeded: the same samples give the same interval. `nil` with
    /// fewer than 2 rounds.
    static func pairedRatioInterval(ours: [Double], theirs: [Double], resamples: Int = 1000) -> (low: Double, high: Double)? {
        let pairs = zip(ours, theirs).filter { $0.0 > 0 && $0.1 > 0 }
        guard pairs.count >= 2 else { return nil }
        var random = SplitMix64(seed: 0x5EED_0F_B0075)
        var ratios: [Double] = []
        ratios.reserveCapacity(resamples)
        var oursDrawn = [Double](repeating: 0, count: pairs.count)
        var theirsDrawn = [Double](repeating: 0, count: pairs.count)
        for _ in 0..<resamples {
            for index in pairs.indices {
                let pick = pairs[Int(random.next() % UInt64(pairs.count))]
                oursDrawn[index] = pick.0
                theirsDrawn[index] = pick.1
            }
            oursDrawn.sort()
            theirsDrawn.sort()
            ratios.append(percentile(theirsDrawn, 0.5) / percentile(oursDrawn, 0.5))
        }
        ratios.sort()
        return (percentile(ratios, 0.025), percentile(ratios, 0.975))
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
