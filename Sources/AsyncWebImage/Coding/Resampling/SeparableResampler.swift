import CResampler

/// The library's one resampling engine: separable, one pass over the
/// source, alpha premultiplied, in gamma-encoded values or in linear light.
/// It runs in one of two orders (``Order``), whichever costs fewer
/// multiply-adds for the geometry; both give the same image within float
/// rounding.
///
/// ``ImageResampler`` feeds it the rows of a decoded image; decoders feed it
/// rows as they decode them (through ``StreamingResampler``), so a thumbnail
/// never needs the full-size image nor a source-height intermediate. It
/// holds a ring of ``ResamplingWeights/taps`` rows (filtered or prepared,
/// by ``Order``), and writes each output row straight from registers to
/// bytes the moment its last source row has arrived: nothing is zeroed,
/// nothing accumulates in memory.
///
/// Values: 8-bit samples become floats (`0...255`, or `0...1` in linear
/// light through ``SRGBTransfer``); colour is multiplied by alpha so a
/// transparent pixel's colour weighs nothing; the vertical sum is divided
/// back by alpha, re-encoded and rounded to the nearest byte.
///
/// With ``clamps`` (anti-ringing), each pass clamps every value it makes to
/// the range of the input samples under its kernel's main lobe
/// (``ResamplingWeights/clampOffsets``): the negative lobes still sharpen,
/// but cannot draw a value darker or brighter than anything nearby (the dark
/// line beside a white edge).
///
/// The multiply-adds run in the AVX2/FMA loops of `CResampler` on CPUs that
/// have them (chosen at run time; the package builds for baseline x86-64),
/// else in the Swift loops below; the two differ only by float rounding.
/// The byte/float conversions of gamma values are `CResampler`'s on every
/// CPU (compiled for AVX2 or for the baseline): identical results.
package struct SeparableResampler {
    /// Whether the filter runs on the stored (gamma-encoded) values or on linear light.
    package enum Light: Sendable, Hashable {
        /// The 8-bit values as stored: the fastest, and what most tools do.
        case gamma
        /// Linear light (sRGB decoded): physically right, brighter fine detail.
        case linear
    }

    /// Which pass runs first. Filtering horizontally first touches every
    /// source row at output width; combining vertically first touches only
    /// the output rows, at source width, with contiguous 8-float vectors and
    /// no wasted lane. For a thumbnail (both sides shrunk alike)
    /// vertical-first does much less work; horizontal-first wins when the
    /// height grows, or shrinks much less than the width, or when a ring of
    /// source rows would not fit in cache.
    package enum Order: Sendable, Hashable {
        /// Each source row filtered horizontally into a ring of output-width
        /// rows; each output row then combines its window vertically.
        case horizontalFirst
        /// Each source row prepared into a ring of source-width rows; each
        /// output row combines its window vertically into one source-width
        /// row, then filters that row horizontally.
        case verticalFirst
    }

    let sourceWidth: Int
    let sourceHeight: Int
    let size: PixelSize
    let pixelFormat: PixelFormat
    let light: Light
    /// Whether each pass clamps to the range of its main lobe's inputs.
    let clamps: Bool
    /// Whether the multiply-adds run in `CResampler`'s AVX2/FMA loops.
    let vectorLoops: Bool
    let horizontal: ResamplingWeights
    let vertical: ResamplingWeights
    /// The order this resampler runs in (see ``order(sourceWidth:sourceHeight:to:channels:)``).
    package let order: Order
    /// Floats per output row (width × channels).
    private let rowFloats: Int
    /// Floats per source row (width × channels).
    private let sourceFloats: Int
    /// Floats between ring rows: the ring row's floats rounded up to whole
    /// 8-float vectors, plus slack for the 4-float stores and loads of
    /// 3-channel pixels.
    private let ringStride: Int
    /// Horizontal-first: the prepared source row (floats, premultiplied),
    /// with 4 floats of slack. Vertical-first: the window's rows combined,
    /// ``ringStride`` floats.
    private var line: [Float]
    /// ``ResamplingWeights/taps`` rows of the vertical window: horizontally
    /// filtered (horizontal-first) or prepared source rows (vertical-first).
    private var ring: [Float]
    /// One output row of floats, before it becomes bytes.
    private var sums: [Float]
    /// The next source row expected.
    private(set) var nextSourceRow = 0
    /// The next output row to write.
    private(set) var nextOutputRow = 0

    /// Bytes the resampler holds besides its output.
    var workingBytes: Int { (line.count + ring.count + sums.count + horizontal.weights.count + vertical.weights.count) * 4 }

    /// An upper bound of ``workingBytes`` for any filter, known before any
    /// weight is computed (the decoders' memory budgets are checked from
    /// headers): the widest kernel (Lanczos-3) has at most
    /// `6 × scale + 2` taps.
    static func workingBytesEstimate(sourceWidth: Int, sourceHeight: Int, to size: PixelSize, channels: Int) -> Int {
        let (horizontal, vertical) = (tapsBound(sourceWidth, size.width), tapsBound(sourceHeight, size.height))
        let outputStride = stride(floats: size.width * channels)
        let buffers = switch order(sourceWidth: sourceWidth, sourceHeight: sourceHeight, to: size, channels: channels) {
        case .horizontalFirst: sourceWidth * channels + 4 + outputStride * (vertical + 1)
        case .verticalFirst: stride(floats: sourceWidth * channels) * (vertical + 1) + outputStride
        }
        let floats = buffers + size.width * horizontal + size.height * vertical
        return floats * 4 + (size.width + size.height) * 8
    }

    /// The most taps any filter needs to map `source` samples onto `destination`.
    private static func tapsBound(_ source: Int, _ destination: Int) -> Int {
        min(source, Int((6 * max(Double(source) / Double(max(destination, 1)), 1)).rounded(.up)) + 2)
    }

    /// Ring row floats: whole 8-float vectors plus slack for 4-float accesses past the last pixel.
    private static func stride(floats: Int) -> Int { (floats + 7) / 8 * 8 + 8 }

    /// The cheaper ``Order`` for a geometry, from the taps bound (not the
    /// filter's own taps) so that ``workingBytesEstimate(sourceWidth:sourceHeight:to:channels:)``
    /// knows it from headers. The cost unit is one horizontal tap of one
    /// pixel for 3 or 4 channels (one 4-float vector; for 1 or 2 channels,
    /// one scalar per channel), which measures about as slow as one
    /// vertical tap over 8 contiguous floats (the horizontal loads are
    /// unaligned and each needs its own weight). A vertical-first ring over
    /// 1 MiB is refused: the ring is read whole for every output row and
    /// should stay in cache, and a streaming decode's memory should not
    /// grow with the source width.
    static func order(sourceWidth: Int, sourceHeight: Int, to size: PixelSize, channels: Int) -> Order {
        let (horizontal, vertical) = (tapsBound(sourceWidth, size.width), tapsBound(sourceHeight, size.height))
        let lanes = channels >= 3 ? 1 : channels
        let filteredRows = min(sourceHeight, size.height * vertical)
        let horizontalFirst = filteredRows * size.width * horizontal * lanes
            + size.height * ((size.width * channels + 7) / 8) * vertical
        let verticalFirst = size.height * ((sourceWidth * channels + 7) / 8) * vertical
            + size.height * size.width * horizontal * lanes
        let ringBytes = stride(floats: sourceWidth * channels) * vertical * 4
        return verticalFirst < horizontalFirst && ringBytes <= 1 << 20 ? .verticalFirst : .horizontalFirst
    }

    /// Whether every output row has been written.
    var isComplete: Bool { nextOutputRow == size.height }

    /// Whether this CPU runs `CResampler`'s AVX2/FMA loops.
    static let vectorLoopsAvailable = cresampler_available() == 1

    /// A resampler from `sourceWidth × sourceHeight` to `size`; `order`
    /// overrides the cheaper one and `vectorLoops` the CPU's choice of loops
    /// (tests compare them).
    init(sourceWidth: Int, sourceHeight: Int, to size: PixelSize, pixelFormat: PixelFormat,
         filter: ImageTransformers.Resize.Filter, light: Light = .gamma, clamps: Bool = false,
         extent: (width: Double, height: Double)? = nil, order: Order? = nil, vectorLoops: Bool = Self.vectorLoopsAvailable) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && size.width > 0 && size.height > 0, "empty resample")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.size = size
        self.pixelFormat = pixelFormat
        self.light = light
        self.clamps = clamps
        self.vectorLoops = vectorLoops && Self.vectorLoopsAvailable
        horizontal = ResamplingWeights(source: sourceWidth, destination: size.width, filter: filter, extent: extent?.width)
        vertical = ResamplingWeights(source: sourceHeight, destination: size.height, filter: filter, extent: extent?.height)
        let channels = pixelFormat.channelCount
        let order = order ?? Self.order(sourceWidth: sourceWidth, sourceHeight: sourceHeight, to: size, channels: channels)
        self.order = order
        rowFloats = size.width * channels
        sourceFloats = sourceWidth * channels
        let outputStride = Self.stride(floats: rowFloats)
        switch order {
        case .horizontalFirst:
            ringStride = outputStride
            line = [Float](repeating: 0, count: sourceFloats + 4)
        case .verticalFirst:
            ringStride = Self.stride(floats: sourceFloats)
            line = [Float](repeating: 0, count: ringStride)
        }
        ring = [Float](repeating: 0, count: ringStride * vertical.taps)
        sums = [Float](repeating: 0, count: outputStride)
    }

    /// Adds the next source row (`sourceWidth` tightly packed pixels) and
    /// writes every output row it completes at `output + y × bytesPerRow`.
    mutating func add(row: UnsafePointer<UInt8>, output: UnsafeMutableRawPointer, bytesPerRow: Int) {
        guard nextSourceRow < sourceHeight else { return }
        switch pixelFormat {
        case .rgba8: add(RGBA.self, row, output, bytesPerRow)
        case .rgb8: add(RGB.self, row, output, bytesPerRow)
        case .grayAlpha8: add(GrayAlpha.self, row, output, bytesPerRow)
        case .gray8: add(Gray.self, row, output, bytesPerRow)
        }
        nextSourceRow += 1
    }

    // Channel layouts as types, so every loop is compiled for a constant
    // channel count.
    private protocol Layout {
        static var channels: Int { get }
        static var hasAlpha: Bool { get }
    }
    private enum RGBA: Layout { static let channels = 4; static let hasAlpha = true }
    private enum RGB: Layout { static let channels = 3; static let hasAlpha = false }
    private enum GrayAlpha: Layout { static let channels = 2; static let hasAlpha = true }
    private enum Gray: Layout { static let channels = 1; static let hasAlpha = false }

    private mutating func add<L: Layout>(_: L.Type, _ source: UnsafePointer<UInt8>, _ output: UnsafeMutableRawPointer, _ bytesPerRow: Int) {
        // A row before the window of the next output row is needed by none.
        guard nextOutputRow < size.height, nextSourceRow >= vertical.starts[nextOutputRow] else { return }
        switch order {
        case .horizontalFirst: addFilteringFirst(L.self, source, output, bytesPerRow)
        case .verticalFirst: addCombiningFirst(L.self, source, output, bytesPerRow)
        }
    }

    private mutating func addCombiningFirst<L: Layout>(_: L.Type, _ source: UnsafePointer<UInt8>, _ output: UnsafeMutableRawPointer, _ bytesPerRow: Int) {
        let j = nextSourceRow
        let taps = vertical.taps
        let (width, linear, ringStride, sourceFloats) = (sourceWidth, light == .linear, ringStride, sourceFloats)
        let (clamps, vectorLoops) = (clamps, vectorLoops)
        ring.withUnsafeMutableBufferPointer { ring in
            Self.prepare(L.self, source, width: width, linear: linear, into: ring.baseAddress! + (j % taps) * ringStride, vectorLoops: vectorLoops)
        }
        // Every output row whose window ends here is complete.
        while nextOutputRow < size.height, vertical.starts[nextOutputRow] + taps - 1 == j {
            let y = nextOutputRow
            let start = vertical.starts[y]
            let destination = (output + y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
            let horizontal = horizontal
            ring.withUnsafeBufferPointer { ring in
                line.withUnsafeMutableBufferPointer { line in
                    sums.withUnsafeMutableBufferPointer { sums in
                        vertical.weights.withUnsafeBufferPointer { weights in
                            Self.combine(
                                ring.baseAddress!, stride: ringStride, first: start, taps: taps,
                                weights: weights.baseAddress! + y * taps, floats: sourceFloats, into: line.baseAddress!,
                                vectorLoops: vectorLoops
                            )
                        }
                        if clamps {
                            Self.clampCombined(
                                ring.baseAddress!, stride: ringStride, first: start + vertical.clampOffsets[y], taps: taps,
                                count: vertical.clampCounts[y], floats: sourceFloats, into: line.baseAddress!, vectorLoops: vectorLoops
                            )
                        }
                        Self.filterRow(L.self, line.baseAddress!, horizontal, into: sums.baseAddress!, clamps: clamps, vectorLoops: vectorLoops)
                        Self.write(L.self, sums.baseAddress!, pixels: size.width, linear: linear, to: destination, vectorLoops: vectorLoops)
                    }
                }
            }
            nextOutputRow += 1
        }
    }

    private mutating func addFilteringFirst<L: Layout>(_: L.Type, _ source: UnsafePointer<UInt8>, _ output: UnsafeMutableRawPointer, _ bytesPerRow: Int) {
        let j = nextSourceRow
        let taps = vertical.taps
        let (width, linear, ringStride, rowFloats) = (sourceWidth, light == .linear, ringStride, rowFloats)
        let (clamps, vectorLoops) = (clamps, vectorLoops)
        let horizontal = horizontal
        line.withUnsafeMutableBufferPointer { line in
            ring.withUnsafeMutableBufferPointer { ring in
                let line = line.baseAddress!
                Self.prepare(L.self, source, width: width, linear: linear, into: line, vectorLoops: vectorLoops)
                let slot = ring.baseAddress! + (j % taps) * ringStride
                Self.filterRow(L.self, line, horizontal, into: slot, clamps: clamps, vectorLoops: vectorLoops)
            }
        }
        // Every output row whose window ends here is complete.
        while nextOutputRow < size.height, vertical.starts[nextOutputRow] + taps - 1 == j {
            let y = nextOutputRow
            let start = vertical.starts[y]
            let destination = (output + y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
            ring.withUnsafeBufferPointer { ring in
                sums.withUnsafeMutableBufferPointer { sums in
                    vertical.weights.withUnsafeBufferPointer { weights in
                        Self.combine(
                            ring.baseAddress!, stride: ringStride, first: start, taps: taps,
                            weights: weights.baseAddress! + y * taps, floats: rowFloats, into: sums.baseAddress!,
                            vectorLoops: vectorLoops
                        )
                    }
                    if clamps {
                        Self.clampCombined(
                            ring.baseAddress!, stride: ringStride, first: start + vertical.clampOffsets[y], taps: taps,
                            count: vertical.clampCounts[y], floats: rowFloats, into: sums.baseAddress!, vectorLoops: vectorLoops
                        )
                    }
                    Self.write(L.self, sums.baseAddress!, pixels: size.width, linear: linear, to: destination, vectorLoops: vectorLoops)
                }
            }
            nextOutputRow += 1
        }
    }

    /// 8-bit samples to floats: gamma values (`0...255`, in `CResampler`)
    /// or linear light (`0...1`), colour multiplied by alpha/255, alpha kept
    /// as `0...255`.
    @inline(__always)
    private static func prepare<L: Layout>(
        _: L.Type, _ source: UnsafePointer<UInt8>, width: Int, linear: Bool, into line: UnsafeMutablePointer<Float>, vectorLoops: Bool
    ) {
        let channels = L.channels
        let samples = width * channels
        if !linear {
            if L.hasAlpha {
                cresampler_widen_premultiplied(source, width, channels, line, vectorLoops ? 1 : 0)
            } else {
                cresampler_widen(source, samples, line, vectorLoops ? 1 : 0)
            }
            return
        }
        SRGBTransfer.linearFromByte.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            if !L.hasAlpha {
                // Eight bytes in one load and two 4-float stores: the lookups
                // stay scalar, the per-sample loads and stores do not (about
                // a third faster than one sample at a time).
                var i = 0
                while i + 8 <= samples {
                    let bytes = UInt64(littleEndian: UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self))
                    @inline(__always) func linear(_ shift: UInt64) -> Float { table[Int(truncatingIfNeeded: (bytes >> shift) & 255)] }
                    let out = UnsafeMutableRawPointer(line + i)
                    out.storeBytes(of: SIMD4(linear(0), linear(8), linear(16), linear(24)), as: SIMD4<Float>.self)
                    out.storeBytes(of: SIMD4(linear(32), linear(40), linear(48), linear(56)), toByteOffset: 16, as: SIMD4<Float>.self)
                    i += 8
                }
                while i < samples { line[i] = table[Int(source[i])]; i += 1 }
                return
            }
            for x in 0..<width {
                let p = x * channels
                let alpha = Float(source[p + channels - 1])
                let weight = alpha * (1 / 255)
                for c in 0..<(channels - 1) { line[p + c] = table[Int(source[p + c])] * weight }
                line[p + channels - 1] = alpha
            }
        }
    }

    /// The horizontal pass of one prepared row into `out`, clamped to each
    /// pixel's main-lobe range when `clamps`.
    @inline(__always)
    private static func filterRow<L: Layout>(
        _: L.Type, _ line: UnsafePointer<Float>, _ horizontal: ResamplingWeights, into out: UnsafeMutablePointer<Float>,
        clamps: Bool, vectorLoops: Bool
    ) {
        horizontal.weights.withUnsafeBufferPointer { weights in
            horizontal.starts.withUnsafeBufferPointer { starts in
                if vectorLoops && L.channels >= 3 {
                    cresampler_filter(line, weights.baseAddress!, starts.baseAddress!, horizontal.taps, horizontal.count, L.channels, out)
                } else {
                    filterRow(L.self, line, weights.baseAddress!, starts.baseAddress!, taps: horizontal.taps, count: horizontal.count, into: out)
                }
                guard clamps else { return }
                horizontal.clampOffsets.withUnsafeBufferPointer { offsets in
                    horizontal.clampCounts.withUnsafeBufferPointer { counts in
                        cresampler_clamp_row(
                            line, starts.baseAddress!, offsets.baseAddress!, counts.baseAddress!, horizontal.count, L.channels, out,
                            vectorLoops ? 1 : 0
                        )
                    }
                }
            }
        }
    }

    /// Clamps each of the first `floats` values in `sums` to the range of
    /// the `count` ring rows from row `first` (the output row's main lobe).
    @inline(__always)
    private static func clampCombined(
        _ ring: UnsafePointer<Float>, stride: Int, first: Int, taps: Int, count: Int, floats: Int,
        into sums: UnsafeMutablePointer<Float>, vectorLoops: Bool
    ) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: max(count, 1)) { rows in
            for k in 0..<count { rows[k] = ring + ((first + k) % taps) * stride }
            cresampler_clamp_combined(rows.baseAddress!, max(count, 1), floats, sums, vectorLoops ? 1 : 0)
        }
    }

    /// The horizontal filter of one prepared row: each output pixel the
    /// weighted sum of its window, one vector of channels per tap.
    @inline(__always)
    private static func filterRow<L: Layout>(
        _: L.Type, _ line: UnsafePointer<Float>, _ weights: UnsafePointer<Float>, _ starts: UnsafePointer<Int>,
        taps: Int, count: Int, into out: UnsafeMutablePointer<Float>
    ) {
        let channels = L.channels
        switch channels {
        case 3, 4:
            // Four floats per tap (for RGB the fourth belongs to the next
            // pixel, weighed but never stored: the row has 4 floats of slack).
            for x in 0..<count {
                var p = UnsafeRawPointer(line + starts[x] * channels)
                var w = weights + x * taps
                var a = SIMD4<Float>(), b = SIMD4<Float>()
                var k = 0
                while k + 2 <= taps {
                    a += p.loadUnaligned(as: SIMD4<Float>.self) * w[0]
                    b += (p + channels * 4).loadUnaligned(as: SIMD4<Float>.self) * w[1]
                    p += channels * 8
                    w += 2
                    k += 2
                }
                if k < taps { a += p.loadUnaligned(as: SIMD4<Float>.self) * w[0] }
                // For RGB the store's fourth float is overwritten by the next pixel (or lands in the slack).
                UnsafeMutableRawPointer(out + x * channels).storeBytes(of: a + b, as: SIMD4<Float>.self)
            }
        default:
            for x in 0..<count {
                let p = line + starts[x] * channels
                let w = weights + x * taps
                var a: Float = 0, b: Float = 0
                for k in 0..<taps {
                    a += p[k * channels] * w[k]
                    if channels == 2 { b += p[k * channels + 1] * w[k] }
                }
                out[x * channels] = a
                if channels == 2 { out[x * channels + 1] = b }
            }
        }
    }

    /// The vertical filter of one output row: the weighted sum of the
    /// window's ring rows, kept in registers across taps: 32 floats at a
    /// time (four independent sums, so one weight and one row pointer serve
    /// four vectors), then eight at a time for the rest.
    @inline(__always)
    private static func combine(
        _ ring: UnsafePointer<Float>, stride: Int, first: Int, taps: Int,
        weights: UnsafePointer<Float>, floats: Int, into sums: UnsafeMutablePointer<Float>, vectorLoops: Bool
    ) {
        if vectorLoops {
            withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: taps) { rows in
                for k in 0..<taps { rows[k] = ring + ((first + k) % taps) * stride }
                cresampler_combine(rows.baseAddress!, weights, taps, floats, sums)
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: taps) { rows in
            for k in 0..<taps { rows[k] = ring + ((first + k) % taps) * stride }
            var i = 0
            while i + 32 <= floats {
                var a = SIMD8<Float>(), b = SIMD8<Float>(), c = SIMD8<Float>(), d = SIMD8<Float>()
                for k in 0..<taps {
                    let row = UnsafeRawPointer(rows[k] + i), weight = weights[k]
                    a += row.loadUnaligned(as: SIMD8<Float>.self) * weight
                    b += row.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self) * weight
                    c += row.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self) * weight
                    d += row.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self) * weight
                }
                let out = UnsafeMutableRawPointer(sums + i)
                out.storeBytes(of: a, as: SIMD8<Float>.self)
                out.storeBytes(of: b, toByteOffset: 32, as: SIMD8<Float>.self)
                out.storeBytes(of: c, toByteOffset: 64, as: SIMD8<Float>.self)
                out.storeBytes(of: d, toByteOffset: 96, as: SIMD8<Float>.self)
                i += 32
            }
            while i < floats {
                var a = SIMD8<Float>(), b = SIMD8<Float>()
                var k = 0
                while k + 2 <= taps {
                    a += UnsafeRawPointer(rows[k] + i).loadUnaligned(as: SIMD8<Float>.self) * weights[k]
                    b += UnsafeRawPointer(rows[k + 1] + i).loadUnaligned(as: SIMD8<Float>.self) * weights[k + 1]
                    k += 2
                }
                if k < taps { a += UnsafeRawPointer(rows[k] + i).loadUnaligned(as: SIMD8<Float>.self) * weights[k] }
                UnsafeMutableRawPointer(sums + i).storeBytes(of: a + b, as: SIMD8<Float>.self)
                i += 8
            }
        }
    }

    /// One output row of sums to bytes: alpha divided back out, linear light
    /// re-encoded, rounded to nearest and clamped (gamma values in `CResampler`).
    @inline(__always)
    private static func write<L: Layout>(
        _: L.Type, _ sums: UnsafePointer<Float>, pixels: Int, linear: Bool, to out: UnsafeMutablePointer<UInt8>, vectorLoops: Bool
    ) {
        let channels = L.channels
        let samples = pixels * channels
        if !linear {
            if L.hasAlpha {
                cresampler_narrow_unpremultiplied(sums, pixels, channels, out, vectorLoops ? 1 : 0)
            } else {
                cresampler_narrow(sums, samples, out, vectorLoops ? 1 : 0)
            }
            return
        }
        SRGBTransfer.byteFromLinear.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            @inline(__always) func encode(_ value: Float) -> UInt8 {
                let index = value * SRGBTransfer.scale + 0.5
                return table[index <= 0 ? 0 : (index >= SRGBTransfer.scale ? 65_535 : Int(index))]
            }
            if !L.hasAlpha {
                for i in 0..<samples { out[i] = encode(sums[i]) }
                return
            }
            for x in 0..<pixels {
                let p = x * channels
                let alpha = sums[p + channels - 1]
                // Colour sums were weighted by alpha/255: divide that back out.
                let unweight: Float = alpha > 0.5 ? 255 / alpha : 0
                for c in 0..<(channels - 1) { out[p + c] = encode(sums[p + c] * unweight) }
                out[p + channels - 1] = byte(alpha)
            }
        }
    }

    /// A float in `0...255` rounded to the nearest byte, clamped.
    @inline(__always)
    static func byte(_ value: Float) -> UInt8 {
        let rounded = value + 0.5
        return rounded <= 0 ? 0 : (rounded >= 255 ? 255 : UInt8(rounded))
    }
}
