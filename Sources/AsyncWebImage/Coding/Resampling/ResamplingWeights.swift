import Foundation

/// The weights of a resample along one axis: for each output index, a
/// window of ``taps`` consecutive source indices starting at `starts[i]`,
/// and their normalised weights, laid out with a fixed stride.
///
/// Every window has the same length (the widest one's), padded with zero
/// weights and slid inward at the edges, so the filter loops have a constant
/// trip count and never read outside the source; the windows start in
/// order, which is what lets ``SeparableResampler`` keep only ``taps``
/// filtered rows.
struct ResamplingWeights: Sendable {
    /// Source samples along the axis.
    let sourceCount: Int
    /// Output samples along the axis.
    let count: Int
    /// The length of every window.
    let taps: Int
    /// The first source index of each output's window (non-decreasing).
    let starts: [Int]
    /// `count × taps` weights, each window's summing to 1.
    let weights: [Float]
    /// Per output index, the source samples whose range bounds it when the
    /// resampler clamps (``SeparableResampler/clamps``): `clampOffsets[i]`
    /// from `starts[i]`, `clampCounts[i]` of them — those within one
    /// output pixel's width of its centre (the main lobe of a shrinking
    /// kernel, which no ringing reaches beyond), at least the nearest one.
    let clampOffsets: [Int]
    /// See ``clampOffsets``.
    let clampCounts: [Int]

    /// The weights of `filter` from `source` samples to `destination`.
    ///
    /// - Parameter extent: the length in source samples the image really
    ///   spans, when its last sample stands for less than a whole one (the
    ///   partial last box of a box-reduced image); `source` by default.
    ///
    /// Shrinking widens the kernel by the scale factor (its support is the
    /// filter's radius times the factor, as in libvips's `reduce` and
    /// Pillow's `resample`), so every source sample counts and nothing
    /// aliases; enlarging interpolates with the kernel at its own width.
    init(source: Int, destination: Int, filter: ImageTransformers.Resize.Filter, extent: Double? = nil) {
        precondition(source > 0 && destination > 0, "empty resample")
        sourceCount = source
        count = destination
        let scale = (extent ?? Double(source)) / Double(destination)
        var windows: [(first: Int, taps: [Double])] = []
        windows.reserveCapacity(destination)
        for i in 0..<destination {
            var taps: [Double] = []
            var first = 0
            if filter == .area && scale >= 1 {
                // Exact area coverage: output pixel i covers [i·s, (i+1)·s)
                // in source space; each source pixel j covers [j, j+1).
                let lower = Double(i) * scale, upper = Double(i + 1) * scale
                first = max(0, Int(lower.rounded(.down)))
                let last = min(source - 1, Int(upper.rounded(.up)) - 1)
                if last >= first {
                    for j in first...last { taps.append(max(0, min(upper, Double(j + 1)) - max(lower, Double(j)))) }
                }
            } else {
                let (radius, kernel) = Self.kernel(filter)
                let stretch = max(scale, 1)
                let centre = (Double(i) + 0.5) * scale - 0.5
                let support = radius * stretch
                first = max(0, Int((centre - support).rounded(.up)))
                let last = min(source - 1, Int((centre + support).rounded(.down)))
                if last >= first {
                    if filter == .lanczos3 {
                        taps = Self.lanczos3Taps(first: first, last: last, centre: centre, stretch: stretch)
                    } else {
                        for j in first...last { taps.append(kernel((Double(j) - centre) / stretch)) }
                    }
                }
            }
            // Trim zero-weight ends so windows are as short as they can be.
            while let head = taps.first, head == 0, taps.count > 1 { taps.removeFirst(); first += 1 }
            while let tail = taps.last, tail == 0, taps.count > 1 { taps.removeLast() }
            if taps.isEmpty { taps = [1]; first = min(max(0, Int((Double(i) + 0.5) * scale)), source - 1) }
            let total = taps.reduce(0, +)
            windows.append((first, taps.map { total != 0 ? $0 / total : 1 / Double(taps.count) }))
        }
        let taps = min(source, windows.map { $0.taps.count }.max() ?? 1)
        self.taps = taps
        var starts = [Int](repeating: 0, count: destination)
        var weights = [Float](repeating: 0, count: destination * taps)
        var previous = 0
        var clampOffsets = [Int](repeating: 0, count: destination)
        var clampCounts = [Int](repeating: 1, count: destination)
        let lobe = max(scale, 1)
        for (i, window) in windows.enumerated() {
            // Slide the window inward at the far edge; keep starts in order.
            let start = max(previous, min(window.first, source - taps))
            starts[i] = start
            previous = start
            let centre = (Double(i) + 0.5) * scale - 0.5
            let nearest = min(max(Int(centre.rounded()), start), start + taps - 1)
            let low = min(max(Int((centre - lobe).rounded(.up)), start), nearest)
            let high = max(min(Int((centre + lobe).rounded(.down)), start + taps - 1), nearest)
            clampOffsets[i] = low - start
            clampCounts[i] = high - low + 1
            for (k, weight) in window.taps.enumerated() {
                let index = window.first + k - start
                // A window longer than the source (tiny images) folds its
                // out-of-range weights onto the nearest sample.
                weights[i * taps + min(max(index, 0), taps - 1)] += Float(weight)
            }
        }
        self.starts = starts
        self.weights = weights
        self.clampOffsets = clampOffsets
        self.clampCounts = clampCounts
    }

    /// The radius and the kernel function of a filter (for `.area`, the
    /// bilinear kernel it uses when enlarging).
    static func kernel(_ filter: ImageTransformers.Resize.Filter) -> (radius: Double, function: @Sendable (Double) -> Double) {
        switch filter {
        case .lanczos3: (3, lanczos3)
        case .mitchell: (2, mitchell)
        case .triangle, .area: (1, { max(0, 1 - abs($0)) })
        }
    }

    /// Lanczos-3: sinc(x)·sinc(x/3) for |x| < 3.
    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// ``lanczos3(_:)`` at `(j − centre) / stretch` for `j` in `first...last`.
    /// The two sines step by a fixed angle from tap to tap, so they come
    /// from rotating a (cosine, sine) pair rather than from two `sin` calls
    /// a tap (a thumbnail's windows have about 25 taps, and the calls were
    /// a tenth of its resample); the rotation's rounding, some 25 steps of
    /// 1e-16, never reaches a `Float` weight. The tap nearest the centre,
    /// where the quotient is 0/0 in the limit, is computed directly.
    static func lanczos3Taps(first: Int, last: Int, centre: Double, stretch: Double) -> [Double] {
        let start = Double.pi * (Double(first) - centre) / stretch, step = Double.pi / stretch
        var (sine, cosine) = (sin(start), cos(start))
        var (sineThird, cosineThird) = (sin(start / 3), cos(start / 3))
        let (stepSine, stepCosine) = (sin(step), cos(step))
        let (stepSineThird, stepCosineThird) = (sin(step / 3), cos(step / 3))
        var taps: [Double] = []
        taps.reserveCapacity(last - first + 1)
        for j in first...last {
            let x = (Double(j) - centre) / stretch
            if abs(x) < 0.5 || abs(x) >= 3 {
                taps.append(lanczos3(x))
            } else {
                let px = Double.pi * x
                taps.append(3 * sine * sineThird / (px * px))
            }
            (sine, cosine) = (sine * stepCosine + cosine * stepSine, cosine * stepCosine - sine * stepSine)
            (sineThird, cosineThird) = (sineThird * stepCosineThird + cosineThird * stepSineThird, cosineThird * stepCosineThird - sineThird * stepSineThird)
        }
        return taps
    }

    /// Mitchell–Netravali with B = C = 1/3, support 2.
    static func mitchell(_ x: Double) -> Double {
        let (b, c) = (1.0 / 3, 1.0 / 3)
        let x = abs(x)
        if x < 1 {
            return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6
        }
        if x < 2 {
            return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
        }
        return 0
    }
}
