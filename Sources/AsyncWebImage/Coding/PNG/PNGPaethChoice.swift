/// The Paeth predictor (PNG specification, 9.4) recast for known pixels
/// above (`b`) and above-left (`c`), as ranges of the left pixel `a`: for
/// two pixels' channels at once (8 lanes), worked out before the row's
/// chain from one pixel to the next.
///
/// With `d = b − c`, the specification's choice depends only on where `a`
/// falls against thresholds made of `b` and `c` alone:
/// - outside the open interval (`low`, `high`) it is `a`, where the interval
///   is (c − 2|d|, b) when d ≥ 0 and (b, c + 2|d|) when d < 0 (there
///   `|d|` ≤ `|a − c|` and `|d|` ≤ `|d + a − c|`);
/// - inside, it is `b` on the side where `|a − c|` ≤ `|d + a − c|`, that is
///   2a ≥ 3c − b when d ≥ 0 and 2a ≤ 3c − b when d < 0 (`threshold` splits
///   the interval: `upper` from it up, `lower` below it), else `c`.
///
/// The chain then compares `a` with three bytes and selects twice, in
/// 8-bit lanes, instead of the predictor's absolute differences in 16-bit
/// lanes (Paeth rows took half the thumbnail server's CPU for a PNG).
struct PNGPaethChoice {
    /// One pixel's part of the choice: the thresholds as signed bytes of
    /// `value − 128` (signed byte compares then order 0...255), clamped
    /// where that keeps every answer for `a` in 0...255.
    struct Pixel {
        /// `a` at most `low` (stored: `low + 1 − 128`; `a` is outside below when this is greater).
        let low: SIMD4<Int8>
        /// `a` at least `high` (stored: `high − 1 − 128`; `a` is outside above when it is greater).
        let high: SIMD4<Int8>
        /// Stored: `threshold − 128`; `a` below when this is greater.
        let threshold: SIMD4<Int8>
        /// The prediction inside the interval from `threshold` up.
        let upper: SIMD4<UInt8>
        /// The prediction inside the interval below `threshold`.
        let lower: SIMD4<UInt8>

        /// The predicted samples for the left samples `a`.
        @inline(__always)
        func predict(left a: SIMD4<UInt8>) -> SIMD4<UInt8> {
            let biased = SIMD4<Int8>(truncatingIfNeeded: a ^ 0x80)
            let outside = (low .> biased) .| (biased .> high)
            let inside = upper.replacing(with: lower, where: threshold .> biased)
            return inside.replacing(with: a, where: outside)
        }
    }

    /// The choice for lanes 0...3.
    let first: Pixel
    /// The choice for lanes 4...7.
    let second: Pixel

    /// The choice for samples with `above` (b) and `aboveLeft` (c).
    @inline(__always)
    init(above: SIMD8<UInt8>, aboveLeft: SIMD8<UInt8>) {
        let b = SIMD8<Int16>(truncatingIfNeeded: above), c = SIMD8<Int16>(truncatingIfNeeded: aboveLeft)
        let d = b &- c
        let negative = d &>> 15 // all ones where d < 0
        let m = (d ^ negative) &- negative // |d|
        let mWhereNegative = m & negative
        let mWherePositive = m &- mWhereNegative
        let low = c &- m &- mWherePositive
        let high = c &+ m &+ mWhereNegative
        // ⌈(3c − b) / 2⌉ when d ≥ 0 (2a ≥ 3c − b); ⌊(3c − b) / 2⌋ + 1 when d < 0 (a from it up fails 2a ≤ 3c − b).
        let threshold = ((c &+ c) &- (d &+ negative) &+ 1) &>> 1
        let dWhereNegative = d & negative
        let lower = c &+ dWhereNegative
        // A threshold over 255 clamps to 255, which a = 255 would reach: no `a` is at it, so both sides are `lower`.
        // (Clamping the others is exact: low + 1 ≤ 0 and high − 1 ≥ 255 are never crossed; low + 1 ≥ 256 and
        // high − 1 ≤ −1 happen only for b = c = 255 and b = c = 0, where the other bound puts every `a` outside.)
        let upper = (b &- dWhereNegative).replacing(with: lower, where: threshold .> SIMD8<Int16>(repeating: 255))
        let lowBiased = Self.saturated(low &- 127), highBiased = Self.saturated(high &- 129)
        let thresholdBiased = Self.saturated(threshold &- 128)
        let upperBytes = SIMD8<UInt8>(truncatingIfNeeded: upper), lowerBytes = SIMD8<UInt8>(truncatingIfNeeded: lower)
        first = Pixel(
            low: lowBiased.lowHalf, high: highBiased.lowHalf, threshold: thresholdBiased.lowHalf,
            upper: upperBytes.lowHalf, lower: lowerBytes.lowHalf
        )
        second = Pixel(
            low: lowBiased.highHalf, high: highBiased.highHalf, threshold: thresholdBiased.highHalf,
            upper: upperBytes.highHalf, lower: lowerBytes.highHalf
        )
    }

    /// `x` clamped to −128...127, as bytes (the standard library's
    /// `init(clamping:)` on vectors is a call and a scalar loop).
    @inline(__always)
    private static func saturated(_ x: SIMD8<Int16>) -> SIMD8<Int8> {
        SIMD8<Int8>(truncatingIfNeeded: pointwiseMin(pointwiseMax(x, SIMD8(repeating: -128)), SIMD8(repeating: 127)))
    }
}
