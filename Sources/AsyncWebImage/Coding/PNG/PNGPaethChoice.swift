/// The Paeth predictor (PNG specification, 9.4) recast for a known pixel
/// above (`b`) and above-left (`c`), as ranges of the left pixel `a`, in
/// four 16-bit lanes (one pixel's channels).
///
/// With `d = b − c`, the specification's choice depends only on where `a`
/// falls against thresholds made of `b` and `c` alone:
/// - outside the open interval (`low`, `high`) it is `a`, where the interval
///   is (c − 2|d|, b) when d ≥ 0 and (b, c + 2|d|) when d < 0 (`|d|` ≤ `|a − c|`
///   and `|d|` ≤ `|d + a − c|`);
/// - inside, it is `b` on the side where `|a − c|` ≤ `|d + a − c|`, that is
///   2a ≥ 3c − b when d ≥ 0 and 2a ≤ 3c − b when d < 0 (`threshold` splits the
///   interval in two: ``upper`` from it up, ``lower`` below), else `c`.
///
/// The thresholds come from the row above, known before the row is
/// unfiltered, so the chain from one pixel to the next is three compares
/// and two selects instead of the predictor's three absolute differences
/// and its comparisons (`PNGUnfilter`'s Paeth rows took half the thumbnail
/// server's CPU for a PNG).
struct PNGPaethChoice {
    /// `a` at most this is predicted by `a` itself.
    let low: SIMD4<Int16>
    /// `a` at least this is predicted by `a` itself.
    let high: SIMD4<Int16>
    /// Inside the interval, `a` from this up is predicted by ``upper``, below it by ``lower``.
    let threshold: SIMD4<Int16>
    /// `b` when d ≥ 0, `c` when d < 0.
    let upper: SIMD4<Int16>
    /// `c` when d ≥ 0, `b` when d < 0.
    let lower: SIMD4<Int16>

    /// The choice for samples with `above` (b) and `aboveLeft` (c), each 0...255.
    @inline(__always)
    init(above b: SIMD4<Int16>, aboveLeft c: SIMD4<Int16>) {
        let d = b &- c
        let negative = d &>> 15 // all ones where d < 0
        let m = (d ^ negative) &- negative // |d|
        let mWhereNegative = m & negative
        let mWherePositive = m &- mWhereNegative
        let cMinusM = c &- m
        low = cMinusM &- mWherePositive
        high = c &+ m &+ mWhereNegative
        // ⌈(3c − b) / 2⌉ when d ≥ 0 (2a ≥ 3c − b); ⌊(3c − b) / 2⌋ + 1 when d < 0 (a above it fails 2a ≤ 3c − b).
        threshold = ((c &+ c) &- (d &+ negative) &+ 1) &>> 1
        let dWhereNegative = d & negative
        upper = b &- dWhereNegative
        lower = c &+ dWhereNegative
    }

    /// The predicted samples for the left samples `a` (each 0...255).
    @inline(__always)
    func predict(left a: SIMD4<Int16>) -> SIMD4<Int16> {
        let inside = (a .> low) .& (a .< high)
        let other = lower.replacing(with: upper, where: a .>= threshold)
        return a.replacing(with: other, where: inside)
    }
}
