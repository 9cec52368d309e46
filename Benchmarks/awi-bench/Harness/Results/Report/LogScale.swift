import Foundation

/// A logarithmic axis: ratios (0.5× and 2× equally far from parity) and
/// latencies (microseconds to seconds on one chart).
struct LogScale {
    let low: Double
    let high: Double
    let start: Double
    let end: Double

    /// A scale covering `values` (positive ones), widened to whole steps of
    /// `base` (2 for ratios, 10 for times), drawn from `start` to `end`.
    init(covering values: [Double], including fixed: [Double] = [], base: Double, start: Double, end: Double) {
        let positive = (values + fixed).filter { $0 > 0 && $0.isFinite }
        let minimum = positive.min() ?? 1
        let maximum = positive.max() ?? base
        let lowExponent = (log(minimum) / log(base)).rounded(.down)
        var highExponent = (log(maximum) / log(base)).rounded(.up)
        if highExponent <= lowExponent { highExponent = lowExponent + 1 }
        low = pow(base, lowExponent)
        high = pow(base, highExponent)
        self.start = start
        self.end = end
    }

    /// Where `value` lands, clamped to the axis.
    func position(_ value: Double) -> Double {
        let clamped = min(max(value, low), high)
        return start + (log(clamped) - log(low)) / (log(high) - log(low)) * (end - start)
    }

    /// The axis's ticks: every power of `base` from low to high.
    func ticks(base: Double) -> [Double] {
        var ticks: [Double] = []
        var value = low
        while value <= high * 1.0001 {
            ticks.append(value)
            value *= base
        }
        return ticks
    }
}
