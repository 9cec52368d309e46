import CLcms2
import CMatrixShaper
import Foundation

/// The fast path of ``ColorTransform`` for RGB matrix/TRC ("matrix-shaper")
/// profiles — Adobe RGB, Display P3, ProPhoto, sRGB with another curve —,
/// which are most of the profiles photos carry.
///
/// Converting such a profile to sRGB is three steps a pixel: each channel
/// through its tone curve to linear light, a 3×3 matrix (source primaries →
/// XYZ D50 → sRGB primaries, plus an offset where lcms2 compensates the
/// black point), and sRGB's curve back to 8 bits. The first two steps are
/// folded into three tables of 256 words of three 16-bit lanes (a
/// channel's linear value times its matrix column, in output-table steps,
/// lifted to be non-negative), so a pixel costs three 8-byte loads, two
/// 64-bit additions (no lane can carry into the next) and
/// three loads from a 65,536-entry table of sRGB codes, which every 16-bit
/// sum indexes (no clamp, no bounds to get wrong); RGB pixels go four at a
/// time, read as three 32-bit words. About 19 instructions a pixel, six
/// of them table loads: 3.7–3.8× lcms2's optimised 8-bit path
/// (`awi-bench --scenario icc-convert`). Those loads, not memory, are the
/// cost: a cache-cold image converts as fast as a cache-hot one.
///
/// So on CPUs with AVX-512 VBMI (checked at run time) the same tables go
/// through `CMatrixShaper`'s vector path instead, 64 pixels at a time with
/// no table load per pixel (byte permutes, and arithmetic on the structure
/// of the sRGB code table, checked against it for every sum at init): the
/// same bytes out in 0.5–0.7 of the time (AVX-512 gathers, tried
/// first, were 2–3× slower than the scalar loop on the AMD EPYC measured).
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
    /// moves 0.2 of a level per step; each table entry is rounded to a
    /// step, so a sum is within 1.5 steps of the exact value.
    static let steps = 16383.0

    /// `columns[c * 256 + v]`: channel `c` at value `v`, in linear light
    /// times its matrix column, in table steps, as three 16-bit lanes of a
    /// 64-bit word (red at bit 0, green 16, blue 32, the top lane zero).
    /// Each table's lanes are shifted up so that none is negative, and the
    /// shifts of the three tables add up to the same `bias` in every lane;
    /// every lane's sum then stays within 0…65535 (checked at init), so one
    /// pixel's sums are two plain 64-bit additions, with no carry from one
    /// lane into the next.
    private let columns: [UInt64]
    /// The sRGB code of each 16-bit sum (sum − bias steps of light).
    private let encode: [UInt8]
    /// `CMatrixShaper`'s tables for the same conversion, or `nil` when the
    /// CPU has no AVX-512 VBMI (or, never seen, when the vector path would
    /// not give `encode`'s codes exactly): then every pixel goes through
    /// the scalar loop.
    private let vectorTables: [UInt8]?

    /// Whether rows go through the vector path (64 pixels at a time, the
    /// rest of each row through the scalar loop).
    var hasVectorPath: Bool { vectorTables != nil }

    /// How many of the nine column tables the vector path looks up (the
    /// rest, whose matrix entry is zero, are constants), or `nil` without
    /// a vector path.
    var vectorLookupTables: Int? {
        vectorTables?.withUnsafeBytes { Int(cmatrixshaper_lookup_tables($0.baseAddress!)) }
    }

    /// Whether this CPU runs the vector path (AVX-512 F, BW and VBMI, with
    /// the OS saving ZMM registers).
    static var cpuRunsVectorPath: Bool { cmatrixshaper_available() != 0 }

    /// The kernel for `source`, or `nil` when it is not a matrix-shaper
    /// profile or lcms2 will not describe it (the caller then keeps lcms2).
    init?(source: LcmsProfile) {
        guard let curves = source.matrixShaperCurves, let affine = Self.affine(source: source, curves: curves) else { return nil }
        // Entries in whole steps, as integers; the offset rides on red.
        var entries = [SIMD4<Int>](repeating: .zero, count: 768)
        for channel in 0..<3 {
            for value in 0..<256 {
                let linear = Double(cmsEvalToneCurveFloat(curves[channel], Float(value) / 255))
                var entry = SIMD4<Int>.zero
                for row in 0..<3 {
                    var exact = affine.matrix[row * 3 + channel] * linear
                    if channel == 0 { exact += affine.offset[row] }
                    // A NaN, an infinity or a matrix that swings far outside
                    // sRGB is no photo profile: lcms2 converts it.
                    guard exact.isFinite, exact.magnitude < 4 else { return nil }
                    entry[row] = Int((exact * Self.steps).rounded())
                }
                entries[channel * 256 + value] = entry
            }
        }
        // Each table's smallest and largest entries, lane by lane.
        let lows = (0..<3).map { channel in
            entries[(channel * 256)..<(channel * 256 + 256)].reduce(SIMD4<Int>(repeating: .max)) { pointwiseMin($0, $1) }
        }
        let highs = (0..<3).map { channel in
            entries[(channel * 256)..<(channel * 256 + 256)].reduce(SIMD4<Int>(repeating: .min)) { pointwiseMax($0, $1) }
        }
        // Green and blue are lifted just enough to be non-negative; red
        // takes the rest of a bias common to all lanes (one code table).
        let zero = SIMD4<Int>.zero
        let lifts = (1...2).map { pointwiseMax(zero, zero &- lows[$0]) }
        let needed = pointwiseMax(zero, zero &- lows[0]) &+ lifts[0] &+ lifts[1]
        let bias = max(needed[0], needed[1], needed[2])
        let redLift = SIMD4<Int>(repeating: bias) &- lifts[0] &- lifts[1]
        let sumHigh = highs[0] &+ highs[1] &+ highs[2] &+ SIMD4<Int>(repeating: bias)
        guard max(sumHigh[0], sumHigh[1], sumHigh[2]) <= Int(UInt16.max) else { return nil }
        columns = entries.indices.map { index in
            let lift = index < 256 ? redLift : lifts[index / 256 - 1]
            let lane = entries[index] &+ lift
            return (0..<3).reduce(UInt64(0)) { word, row in word | UInt64(lane[row]) << (16 * UInt64(row)) }
        }
        let codes = Self.sRGBCodes, last = codes.count - 1
        let encode = (0...Int(UInt16.max)).map { sum in codes[min(max(sum - bias, 0), last)] }
        self.encode = encode
        vectorTables = Self.vectorTables(columns: columns, encode: encode, bias: bias)
    }

    /// The vector path's tables, when this CPU runs it and it reproduces
    /// `encode` for every sum (`cmatrixshaper_prepare` checks all 65,536).
    private static func vectorTables(columns: [UInt64], encode: [UInt8], bias: Int) -> [UInt8]? {
        guard cpuRunsVectorPath, let bias = UInt32(exactly: bias) else { return nil }
        var tables = [UInt8](repeating: 0, count: Int(CMATRIXSHAPER_TABLES_SIZE))
        let exact = tables.withUnsafeMutableBytes { tables in
            cmatrixshaper_prepare(tables.baseAddress!, columns, encode, bias)
        }
        return exact != 0 ? tables : nil
    }

    /// sRGB's 8-bit code for each step of linear light, 0 through
    /// ``steps``: computed once (16,384 `pow`s), shifted by each kernel's bias.
    private static let sRGBCodes: [UInt8] = (0...Int(steps)).map { step in
        let light = Double(step) / steps
        let code = light <= 0.003_130_8 ? 12.92 * light : 1.055 * Foundation.pow(light, 1 / 2.4) - 0.055
        return UInt8((code * 255).rounded())
    }

    /// Converts `height` rows of `width` RGB (`bytesPerPixel` 3) or RGBA (4,
    /// alpha copied) pixels. `source` may equal `destination` (same stride):
    /// each group of pixels is read before it is written.
    ///
    /// - Parameter vectorized: `false` to keep to the scalar loop even when
    ///   ``hasVectorPath`` (to compare the two).
    func apply(
        _ source: UnsafeRawPointer, sourceStride: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, height: Int, bytesPerPixel: Int, vectorized: Bool = true
    ) {
        let vectorTables = vectorized ? vectorTables : nil
        columns.withUnsafeBufferPointer { columns in
            encode.withUnsafeBufferPointer { encode in
                let table = columns.baseAddress!, codes = encode.baseAddress!
                for row in 0..<height {
                    var input = source + row * sourceStride
                    var output = destination + row * destinationStride
                    var remaining = width
                    if let vectorTables {
                        let done = vectorTables.withUnsafeBytes { tables in
                            bytesPerPixel == 4
                                ? cmatrixshaper_convert_rgba(tables.baseAddress!, input, output, width)
                                : cmatrixshaper_convert_rgb(tables.baseAddress!, input, output, width)
                        }
                        input += done * bytesPerPixel
                        output += done * bytesPerPixel
                        remaining -= done
                    }
                    if bytesPerPixel == 4 {
                        Self.convertRGBA(input, output, width: remaining, table: table, codes: codes)
                    } else {
                        Self.convertRGB(input, output, width: remaining, table: table, codes: codes)
                    }
                }
            }
        }
    }

    /// One pixel's three table sums, as lanes of a word (see ``columns``).
    @inline(__always)
    private static func sums(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ table: UnsafePointer<UInt64>) -> Lanes {
        Lanes(word: table[Int(r)] &+ table[256 &+ Int(g)] &+ table[512 &+ Int(b)])
    }

    /// The three 16-bit sums of one pixel in a 64-bit word.
    private struct Lanes {
        var word: UInt64
        @inline(__always) var red: Int { Int(truncatingIfNeeded: word & 0xFFFF) }
        @inline(__always) var green: Int { Int(truncatingIfNeeded: (word >> 16) & 0xFFFF) }
        // The top lane is zero: no mask.
        @inline(__always) var blue: Int { Int(truncatingIfNeeded: word >> 32) }
    }

    /// A row of RGB: four pixels (12 bytes, three words) at a time, so the
    /// input is read a word, not a byte, at a time (the output is written a
    /// byte at a time); the last 0–3 pixels one by one.
    @inline(__always)
    private static func convertRGB(
        _ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, width: Int,
        table: UnsafePointer<UInt64>, codes: UnsafePointer<UInt8>
    ) {
        var input = input, output = output
        for _ in 0..<(width / 4) {
            // Little-endian words: a = r0 g0 b0 r1, b = g1 b1 r2 g2, c = b2 r3 g3 b3.
            let a = UInt32(littleEndian: input.loadUnaligned(as: UInt32.self))
            let b = UInt32(littleEndian: input.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            let c = UInt32(littleEndian: input.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            let p0 = sums(a & 0xFF, (a >> 8) & 0xFF, (a >> 16) & 0xFF, table)
            let p1 = sums(a >> 24, b & 0xFF, (b >> 8) & 0xFF, table)
            let p2 = sums((b >> 16) & 0xFF, b >> 24, c & 0xFF, table)
            let p3 = sums((c >> 8) & 0xFF, (c >> 16) & 0xFF, c >> 24, table)
            // Byte stores: one instruction a code, where packing codes into
            // words takes a shift and an OR for most of them.
            let out = output.assumingMemoryBound(to: UInt8.self)
            out[0] = codes[p0.red]
            out[1] = codes[p0.green]
            out[2] = codes[p0.blue]
            out[3] = codes[p1.red]
            out[4] = codes[p1.green]
            out[5] = codes[p1.blue]
            out[6] = codes[p2.red]
            out[7] = codes[p2.green]
            out[8] = codes[p2.blue]
            out[9] = codes[p3.red]
            out[10] = codes[p3.green]
            out[11] = codes[p3.blue]
            input += 12
            output += 12
        }
        for _ in 0..<(width % 4) {
            let bytes = input.assumingMemoryBound(to: UInt8.self)
            let p = sums(UInt32(bytes[0]), UInt32(bytes[1]), UInt32(bytes[2]), table)
            let out = output.assumingMemoryBound(to: UInt8.self)
            out[0] = codes[p.red]
            out[1] = codes[p.green]
            out[2] = codes[p.blue]
            input += 3
            output += 3
        }
    }

    /// A row of RGBA, a word a pixel; alpha copied.
    @inline(__always)
    private static func convertRGBA(
        _ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, width: Int,
        table: UnsafePointer<UInt64>, codes: UnsafePointer<UInt8>
    ) {
        var input = input, output = output
        for _ in 0..<width {
            let word = UInt32(littleEndian: input.loadUnaligned(as: UInt32.self))
            let p = sums(word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF, table)
            let color = UInt32(codes[p.red]) | UInt32(codes[p.green]) << 8 | UInt32(codes[p.blue]) << 16
            output.storeBytes(of: (color | word & 0xFF00_0000).littleEndian, as: UInt32.self)
            input += 4
            output += 4
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

    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
