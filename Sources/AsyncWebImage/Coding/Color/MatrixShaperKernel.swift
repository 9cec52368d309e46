import CLcms2
import Foundation

/// The fast path of ``ColorTransform`` for RGB matrix/TRC ("matrix-shaper")
/// profiles — Adobe RGB, Display P3, ProPhoto, sRGB with another curve —,
/// which are most of the profiles photos carry.
///
/// Converting such a profile to sRGB is three steps a pixel: each channel
/// through its tone curve to linear light, a 3×3 matrix (source primaries →
/// XYZ D50 → sRGB primaries, plus an offset where lcms2 compensates the
/// black point), and sRGB's curve back to 8 bits. The first two steps are
/// folded into three tables of 256 vectors (a channel's linear value times
/// its matrix column, in output-table steps), so a pixel costs three vector
/// loads, two additions, a rounding by the 2²³ trick (no clamp: the output
/// table spans every sum the tables can make) and three loads from the
/// output table — no branch, no division, no `pow`. lcms2's optimised
/// 8-bit path spends about ten times as long on the same pixel.
///
/// The matrix and offset are not rebuilt from the ICC tags by hand: they
/// are read off lcms2's own unoptimised floating-point transform into a
/// linear-light sRGB profile, so they carry whatever lcms2 decides for the
/// perceptual intent (Bradford adaptation to D50, black point compensation
/// for v4 profiles). ``ColorTransform`` then checks the kernel against
/// lcms2's 8-bit transform on a grid of colours and keeps it only within
/// one level everywhere.
struct MatrixShaperKernel: Sendable {
    /// Output-table steps per unit of linear light: 14 bits, fine enough
    /// that the steep dark end of sRGB's curve (12.92 × 255 levels per unit)
    /// moves at most 0.2 of a level per step.
    static let steps: Float = 16383

    /// `columns[c * 256 + v]`: channel `c` at value `v`, in linear light
    /// times its matrix column, in table steps; red's entries also hold the
    /// offset and the table's bias (so every sum is at least 0).
    private let columns: [SIMD4<Float>]
    /// The sRGB code of each table index (index − bias steps of light).
    private let encode: [UInt8]

    /// The kernel for `source`, or `nil` when it is not a matrix-shaper
    /// profile or lcms2 will not describe it (the caller then keeps lcms2).
    init?(source: LcmsProfile) {
        guard let curves = source.matrixShaperCurves, let affine = Self.affine(source: source, curves: curves) else { return nil }
        var columns = [SIMD4<Float>](repeating: .zero, count: 768)
        for channel in 0..<3 {
            let column = SIMD4<Double>(affine.matrix[channel], affine.matrix[3 + channel], affine.matrix[6 + channel], 0)
            for value in 0..<256 {
                let linear = Double(cmsEvalToneCurveFloat(curves[channel], Float(value) / 255))
                columns[channel * 256 + value] = Self.float(column * linear * Double(Self.steps))
            }
        }
        let offset = Self.float(SIMD4<Double>(affine.offset.x, affine.offset.y, affine.offset.z, 0) * Double(Self.steps))
        for value in 0..<256 { columns[value] += offset }
        guard columns.allSatisfy({ ($0 * 0).sum() == 0 }) else { return nil } // a NaN or an infinity
        // The bias lifts the smallest sum the tables can make above 0;
        // Float addition rounds monotonically, so the smallest and largest
        // entries bound every sum the loop computes, in its order.
        func extreme(_ pick: (SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>) -> SIMD4<Float> {
            (0..<3).map { channel in columns[(channel * 256)..<(channel * 256 + 256)].reduce(columns[channel * 256], pick) }
                .reduce(SIMD4<Float>.zero) { $0 + $1 }
        }
        let lowest = extreme { pointwiseMin($0, $1) }, highest = extreme { pointwiseMax($0, $1) }
        let low = min(lowest[0], lowest[1], lowest[2]), high = max(highest[0], highest[1], highest[2])
        let bias = Float(max(0, -low.rounded(.down)) + 2)
        // A matrix that can swing far outside sRGB is no photo profile:
        // lcms2 converts it, without a table this size.
        guard high + bias < Float(1 << 17) else { return nil }
        for value in 0..<256 { columns[value] += SIMD4(repeating: bias) }
        let count = Int((high + bias).rounded(.up)) + 2
        self.columns = columns
        self.encode = (0..<count).map { index in
            let light = min(max((Double(index) - Double(bias)) / Double(Self.steps), 0), 1)
            let code = light <= 0.003_130_8 ? 12.92 * light : 1.055 * Foundation.pow(light, 1 / 2.4) - 0.055
            return UInt8((code * 255).rounded())
        }
    }

    /// Converts `height` rows of `width` RGB (`bytesPerPixel` 3) or RGBA (4,
    /// alpha copied) pixels. `source` may equal `destination` (same stride):
    /// each pixel is read before it is written.
    func apply(
        _ source: UnsafeRawPointer, sourceStride: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, height: Int, bytesPerPixel: Int
    ) {
        columns.withUnsafeBufferPointer { columns in
            encode.withUnsafeBufferPointer { encode in
                let table = columns.baseAddress!, codes = encode.baseAddress!
                for row in 0..<height {
                    let input = (source + row * sourceStride).assumingMemoryBound(to: UInt8.self)
                    let output = (destination + row * destinationStride).assumingMemoryBound(to: UInt8.self)
                    // Two copies of the loop with the step a constant, so
                    // each is compiled for its layout.
                    if bytesPerPixel == 4 {
                        Self.convert(input, output, width: width, step: 4, table: table, codes: codes)
                    } else {
                        Self.convert(input, output, width: width, step: 3, table: table, codes: codes)
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func convert(
        _ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, width: Int, step: Int,
        table: UnsafePointer<SIMD4<Float>>, codes: UnsafePointer<UInt8>
    ) {
        // Adding 2²³ to a Float in [0, 2²³) leaves round-to-nearest of it
        // in the low mantissa bits: rounding without a conversion instruction.
        let magic = SIMD4<Float>(repeating: 8_388_608)
        var input = input, output = output
        for _ in 0..<width {
            let sum = table[Int(input[0])] + table[256 &+ Int(input[1])] + table[512 &+ Int(input[2])] + magic
            let index = unsafeBitCast(sum, to: SIMD4<Int32>.self) &- 0x4B00_0000
            if step == 4 { output[3] = input[3] }
            output[0] = codes[Int(index[0])]
            output[1] = codes[Int(index[1])]
            output[2] = codes[Int(index[2])]
            input += step
            output += step
        }
    }

    /// The matrix (row-major, linear source → linear sRGB) and offset of
    /// lcms2's perceptual transform from `source` to sRGB, measured on its
    /// floating-point pipeline at black and three colours near mid-grey
    /// (well inside sRGB's gamut for any photo profile, so nothing clips).
    private static func affine(source: LcmsProfile, curves: [OpaquePointer]) -> (matrix: [Double], offset: SIMD3<Double>)? {
        guard let target = LcmsProfile.linearSRGB(),
              let transform = cmsCreateTransform(
                  source.handle, CLcms2_TYPE_RGB_FLT(), target.handle, CLcms2_TYPE_RGB_FLT(),
                  cmsUInt32Number(INTENT_PERCEPTUAL), CLcms2_FLAGS_NOOPTIMIZE() | CLcms2_FLAGS_NOCACHE()
              )
        else { return nil }
        defer { cmsDeleteTransform(transform) }
        let points: [[Float]] = [[0, 0, 0], [0.6, 0.5, 0.5], [0.5, 0.6, 0.5], [0.5, 0.5, 0.6]]
        var input = points.flatMap { $0 }
        var output = [Float](repeating: 0, count: input.count)
        cmsDoTransform(transform, &input, &output, cmsUInt32Number(points.count))
        func linear(_ point: [Float]) -> SIMD3<Double> {
            SIMD3<Double>((0..<3).map { (channel: Int) -> Double in Double(cmsEvalToneCurveFloat(curves[channel], point[channel])) })
        }
        func lcms(_ index: Int) -> SIMD3<Double> {
            SIMD3<Double>(Double(output[index * 3]), Double(output[index * 3 + 1]), Double(output[index * 3 + 2]))
        }
        // M · (lin(pᵢ) − lin(black)) = out(pᵢ) − out(black), for i = 1…3.
        let l = (1...3).map { linear(points[$0]) - linear(points[0]) }
        let o = (1...3).map { lcms($0) - lcms(0) }
        // Columns of L are l[i]; L⁻¹ by cofactors.
        let c0 = cross(l[1], l[2]), c1 = cross(l[2], l[0]), c2 = cross(l[0], l[1])
        let determinant = (l[0] * c0).sum()
        guard determinant.magnitude > 1e-9, determinant.isFinite else { return nil }
        // Rows of L⁻¹ are c0, c1, c2 over the determinant; M = O · L⁻¹.
        var matrix = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                let sum: Double = o[0][row] * c0[column] + o[1][row] * c1[column] + o[2][row] * c2[column]
                matrix[row * 3 + column] = sum / determinant
            }
        }
        let black = linear(points[0])
        let blackOut = lcms(0)
        var offset = SIMD3<Double>.zero
        for row in 0..<3 {
            var sum = 0.0
            for column in 0..<3 { sum += matrix[row * 3 + column] * black[column] }
            offset[row] = blackOut[row] - sum
        }
        return (matrix, offset)
    }

    private static func float(_ vector: SIMD4<Double>) -> SIMD4<Float> {
        SIMD4(Float(vector[0]), Float(vector[1]), Float(vector[2]), Float(vector[3]))
    }

    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
