#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Rewrites a complete progressive JPEG as a baseline (sequential, one
/// interleaved scan) JPEG holding only the coefficients a reduced-scale
/// decode reads: exactly the same pixels at 1/8 (``Mode/eighth``), or a
/// 1/4-scale approximation from the lowest frequencies (``Mode/quarter``).
///
/// A progressive decode needs every coefficient of every block in memory
/// until its last scan (libjpeg's whole-image coefficient arrays: 128 bytes
/// a block, 70 MiB for a 17.9-megapixel photo), and it entropy-decodes every
/// scan even when the scale reads a fraction of what they carry. A baseline
/// stream decodes block row by block row. So the progressive scans are
/// decoded here (Huffman, successive approximation, end-of-band runs,
/// restarts) into compact arrays: for each component, the coefficients its
/// reduced IDCT reads (libjpeg-turbo's: rows and columns 0, 1, 3, 5, 7 for
/// the 2×2 one; 0–3, 5–7 for the 4×4 one; the DC alone for 1×1) and one bit
/// a coefficient saying which are non-zero (successive-approximation
/// refinement needs that of every coefficient). They are re-encoded as one
/// baseline scan with the frame's own quantisation tables, which TurboJPEG
/// decodes at the scale: same coefficients in, same IDCT, upsampling and
/// colour conversion out. A scan that carries none of the kept coefficients
/// is not decoded at all.
///
/// - At 1/8 every full-resolution component is read through a 1×1 IDCT, its
///   DC alone, so its AC scans (most of the file) are skipped, and the
///   output is exactly TurboJPEG's 1/8 decode of the original.
/// - At 1/4 a full-resolution component keeps only its four lowest
///   coefficients (rows and columns 0 and 1: the 2×2 IDCT's main terms), so
///   only the scans of the first spectral band are decoded. A refinement
///   scan that would also refine a skipped band cannot be decoded (it codes
///   runs over coefficients whose history is unknown), so it is skipped too
///   and those coefficients keep the precision of their first pass, each
///   reconstructed at the middle of its interval. In libjpeg's standard
///   progression that skips the luma's higher band and both its refinements,
///   about two thirds of a photo's bytes. What is lost is detail at the 1/4
///   image's own Nyquist limit, which the thumbnail's final reduction (at
///   least ``JPEGScale/thumbnailGap`` times) filters out; the quality panel
///   (`awi-bench --scenario thumbnail-quality`) judged it.
///
/// It declines (`nil`, and the caller decodes the file as it is) whenever
/// the output is not certain: not 8-bit progressive Huffman, more than
/// 10 blocks per MCU, quantisation tables redefined after the first scan, a
/// progression libjpeg would warn about, coefficients left incomplete
/// (libjpeg would then smooth blocks; at 1/4, a DC left incomplete), any
/// damage the decode meets (unknown codes, data ending early or going on,
/// misplaced restarts), values a baseline frame cannot carry; and at 1/4,
/// a file from which it would skip nothing, which libjpeg decodes exactly
/// at the same cost.
enum JPEGReducedScaleTranscoder {
    /// The scale the output is made for, and how faithful it is.
    enum Mode: Sendable {
        /// 1/8: the same pixels as a 1/8 decode of the original.
        case eighth
        /// 1/4, from each full-resolution component's four lowest coefficients.
        case quarter

        /// The mode for a decode at `scale`, or `nil` when none serves it.
        init?(scale: JPEGScale) {
            switch scale {
            case .eighth: self = .eighth
            case .quarter: self = .quarter
            default: return nil
            }
        }

        /// The scale TurboJPEG decodes the output at.
        var scale: JPEGScale { self == .eighth ? .eighth : .quarter }
    }

    /// The baseline stream, or `nil` when the transcoder declines.
    ///
    /// - Parameter frame: the frame header as the marker scanner read it.
    static func baselineStream(_ jpeg: UnsafeRawBufferPointer, frame: JPEGMarkerScanner.Frame, mode: Mode = .eighth) -> [UInt8]? {
        guard frame.marker == 0xC2, [1, 3].contains(frame.components.count) else { return nil }
        var state = State(frame: frame, mode: mode)
        guard state.blocksPerMCU <= 10, state.read(jpeg), state.isComplete else { return nil }
        return state.encode()
    }

    /// Zig-zag index → natural (row-major) index of the 64 coefficients.
    static let naturalOrder: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// The layout of one component's coefficients. It holds no coefficient
    /// arrays of its own (they are ``State/values`` and ``State/nonzero``,
    /// shared by all components): a copy of it, which the block loops make,
    /// then costs no reference counting.
    struct Component {
        let id: UInt8
        let horizontal: Int
        let vertical: Int
        let quantizationTable: Int
        /// Blocks stored per row and column (MCU-padded in a multi-component frame).
        let blocksWide: Int
        let blocksHigh: Int
        /// Blocks a single-component scan codes per row and column.
        let codedWide: Int
        let codedHigh: Int
        /// Natural index → slot in a block's values, or -1 when the 1/8-scale IDCT does not read it.
        let slots: [Int]
        let slotCount: Int
        /// Where this component's blocks start in ``State/values``:
        /// `slotCount` values a block (slot 0 is the DC coefficient).
        let valueBase: Int
        /// Where this component's blocks start in ``State/nonzero`` (only
        /// components with AC slots have bits there).
        let nonzeroBase: Int
        /// libjpeg's `coef_bits` by zig-zag index: the successive-approximation
        /// bit position reached, -1 before any scan.
        var coefficientBits = [Int](repeating: -1, count: 64)
        /// By zig-zag index (bit k): the coefficients kept.
        let keptMask: UInt64
        /// By zig-zag index: the coefficients whose first pass was decoded,
        /// so a refinement of them can be.
        var firstPassDecoded: UInt64 = 0
        /// By zig-zag index: the bit position the decoded scans reached
        /// (below ``coefficientBits`` where a refinement was skipped).
        var decodedBits = [Int](repeating: 0, count: 64)

        var readsAC: Bool { slotCount > 1 }
    }

    /// The decoder's state while reading the file, then the encoder's input.
    struct State {
        let frame: JPEGMarkerScanner.Frame
        var components: [Component]
        /// Every component's kept coefficients, one after the other (``Component/valueBase``).
        var values: [Int16]
        /// One bit per natural index and block, non-zero, for components with AC slots (``Component/nonzeroBase``).
        var nonzero: [UInt64]
        /// The DC predictor of each component in the current scan.
        var predictors: [Int]
        let maxH: Int
        let maxV: Int
        let mcusWide: Int
        let mcusHigh: Int
        var blocksPerMCU: Int { components.reduce(0) { $0 + $1.horizontal * $1.vertical } }
        /// DC and AC tables 0–3 as DHT segments define them.
        var dcTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
        var acTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
        var restartInterval = 0
        /// Segments copied into the output: APP0 (JFIF), APP14 (Adobe), DQT.
        var copied: [UInt8] = []
        var sawScan = false
        var sawEnd = false
        let mode: Mode
        /// Scans whose data was not decoded.
        var skippedScans = 0
        var isComplete: Bool {
            guard sawEnd else { return false }
            switch mode {
            case .eighth:
                // libjpeg smooths blocks whose first coefficients are not all
                // known; with all of them complete, it does not.
                return components.allSatisfy { component in component.coefficientBits[0...9].allSatisfy { $0 == 0 } }
            case .quarter:
                return skippedScans > 0 && components.allSatisfy { $0.coefficientBits[0] == 0 }
            }
        }

        init(frame: JPEGMarkerScanner.Frame, mode: Mode = .eighth) {
            self.frame = frame
            self.mode = mode
            maxH = frame.components.map(\.horizontal).max() ?? 1
            maxV = frame.components.map(\.vertical).max() ?? 1
            let (maxH, maxV) = (maxH, maxV)
            mcusWide = (frame.size.width + 8 * maxH - 1) / (8 * maxH)
            mcusHigh = (frame.size.height + 8 * maxV - 1) / (8 * maxV)
            let single = frame.components.count == 1
            var valueCount = 0, nonzeroCount = 0
            components = frame.components.map { c in
                // libjpeg-turbo's reduced IDCT size (jdmaster.c): the scale's
                // own (1 at 1/8, 2 at 1/4), doubled while both factors allow.
                let least = mode == .eighth ? 1 : 2
                var size = least
                while size < 8, (maxH * least) % (c.horizontal * size * 2) == 0, (maxV * least) % (c.vertical * size * 2) == 0 {
                    size *= 2
                }
                let kept: Set<Int> = switch size {
                case 1: [0]
                case 2 where mode == .quarter: [0, 1]
                case 2: [0, 1, 3, 5, 7]
                case 4: [0, 1, 2, 3, 5, 6, 7]
                default: Set(0..<8)
                }
                var slots = [Int](repeating: -1, count: 64)
                var count = 0
                for natural in 0..<64 where kept.contains(natural / 8) && kept.contains(natural % 8) {
                    slots[natural] = count
                    count += 1
                }
                let codedWide = (frame.size.width * c.horizontal + 8 * maxH - 1) / (8 * maxH)
                let codedHigh = (frame.size.height * c.vertical + 8 * maxV - 1) / (8 * maxV)
                let wide = single ? codedWide : (frame.size.width + 8 * maxH - 1) / (8 * maxH) * c.horizontal
                let high = single ? codedHigh : (frame.size.height + 8 * maxV - 1) / (8 * maxV) * c.vertical
                defer {
                    valueCount += wide * high * count
                    nonzeroCount += count > 1 ? wide * high : 0
                }
                let keptMask = (0..<64).reduce(UInt64(0)) { mask, k in
                    slots[JPEGReducedScaleTranscoder.naturalOrder[k]] >= 0 ? mask | 1 << UInt64(k) : mask
                }
                return Component(
                    id: c.id, horizontal: c.horizontal, vertical: c.vertical, quantizationTable: c.quantizationTable,
                    blocksWide: wide, blocksHigh: high, codedWide: codedWide, codedHigh: codedHigh,
                    slots: slots, slotCount: count, valueBase: valueCount, nonzeroBase: nonzeroCount, keptMask: keptMask
                )
            }
            values = [Int16](repeating: 0, count: valueCount)
            nonzero = [UInt64](repeating: 0, count: nonzeroCount)
            predictors = [Int](repeating: 0, count: components.count)
        }

        // MARK: Reading

        /// Walks the segments, decoding the scans the 1/8 scale needs; `false` to decline.
        mutating func read(_ jpeg: UnsafeRawBufferPointer) -> Bool {
            var offset = 2
            while offset + 1 < jpeg.count {
                guard jpeg[offset] == 0xFF else { return false }
                let marker = jpeg[offset + 1]
                if marker == 0xFF { offset += 1; continue }
                if marker == 0xD9 { sawEnd = true; return true }
                if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
                guard offset + 4 <= jpeg.count else { return false }
                let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
                guard length >= 2, offset + 2 + length <= jpeg.count else { return false }
                let payload = UnsafeRawBufferPointer(rebasing: jpeg[(offset + 4)..<(offset + 2 + length)])
                let segment = UnsafeRawBufferPointer(rebasing: jpeg[offset..<(offset + 2 + length)])
                switch marker {
                case 0xC4:
                    guard defineTables(payload) else { return false }
                case 0xDB:
                    guard !sawScan else { return false }
                    copied.append(contentsOf: segment)
                case 0xDD:
                    guard payload.count >= 2 else { return false }
                    restartInterval = Int(payload[0]) << 8 | Int(payload[1])
                case 0xE0, 0xEE:
                    if !sawScan { copied.append(contentsOf: segment) }
                case 0xC2:
                    guard payload.first == 8 else { return false }
                case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                    return false
                case 0xDA:
                    sawScan = true
                    guard let end = scan(payload, jpeg, dataStart: offset + 2 + length) else { return false }
                    offset = end
                    continue
                default:
                    break
                }
                offset += 2 + length
            }
            return false
        }

        private mutating func defineTables(_ payload: UnsafeRawBufferPointer) -> Bool {
            var p = 0
            while p < payload.count {
                guard p + 17 <= payload.count else { return false }
                let kind = Int(payload[p] >> 4), index = Int(payload[p] & 0x0F)
                guard kind <= 1, index <= 3 else { return false }
                let counts = Array(payload[(p + 1)..<(p + 17)])
                let total = counts.reduce(0) { $0 + Int($1) }
                guard p + 17 + total <= payload.count else { return false }
                let symbols = Array(payload[(p + 17)..<(p + 17 + total)])
                let table = JPEGHuffmanTable(counts: counts, symbols: symbols, isDC: kind == 0)
                if kind == 0 { dcTables[index] = table } else { acTables[index] = table }
                p += 17 + total
            }
            return true
        }

        /// One scan: its header checked and its coefficient bits updated as
        /// libjpeg does, its data decoded when the 1/8 scale reads it, or
        /// skipped. Returns where the data after it starts.
        private mutating func scan(_ header: UnsafeRawBufferPointer, _ jpeg: UnsafeRawBufferPointer, dataStart: Int) -> Int? {
            guard let count = header.first.map(Int.init), (1...4).contains(count), header.count == 1 + 2 * count + 3 else { return nil }
            var members: [(component: Int, dc: Int, ac: Int)] = []
            for i in 0..<count {
                let id = header[1 + 2 * i], tables = header[2 + 2 * i]
                guard let index = components.firstIndex(where: { $0.id == id }), !members.contains(where: { $0.component == index }) else {
                    return nil
                }
                members.append((index, Int(tables >> 4), Int(tables & 0x0F)))
            }
            let start = Int(header[1 + 2 * count]), end = Int(header[2 + 2 * count])
            let high = Int(header[3 + 2 * count] >> 4), low = Int(header[3 + 2 * count] & 0x0F)
            // libjpeg's progression rules; a warning there means decline here.
            if start == 0 {
                guard end == 0 else { return nil }
            } else {
                guard start <= end, end <= 63, count == 1 else { return nil }
            }
            guard low <= 13, high == 0 || low == high - 1 else { return nil }
            for member in members {
                if start > 0, components[member.component].coefficientBits[0] < 0 { return nil }
                for k in start...end {
                    let expected = max(0, components[member.component].coefficientBits[k])
                    guard high == expected else { return nil }
                    components[member.component].coefficientBits[k] = low
                }
            }
            if start > 0 {
                let c = members[0].component
                let band = (UInt64.max >> UInt64(63 - end + start)) << UInt64(start)
                let unknown = band & ~components[c].firstPassDecoded
                // At 1/8 a component with AC coefficients kept decodes all its
                // AC scans, as it must to refine any of them.
                let nothingKept = components[c].keptMask & band == 0 && (mode == .quarter || !components[c].readsAC)
                if nothingKept || (high > 0 && unknown != 0) {
                    // Nothing kept, or (at 1/4) a refinement coding runs over
                    // coefficients whose first pass was skipped.
                    guard nothingKept || mode == .quarter else { return nil }
                    skippedScans += 1
                    return Self.skipEntropyData(jpeg, from: dataStart)
                }
                if high == 0 { components[c].firstPassDecoded |= band }
                for k in start...end { components[c].decodedBits[k] = low }
            } else {
                for member in members { components[member.component].decodedBits[0] = low }
            }
            var reader = JPEGBitReader(jpeg, at: dataStart)
            let decoded: Bool
            if start == 0 {
                guard high > 0 || members.allSatisfy({ $0.dc < 4 && dcTables[$0.dc] != nil }) else { return nil }
                decoded = decodeDC(members.map(\.component), tables: members.map(\.dc), refine: high > 0, shift: low, &reader)
            } else {
                // A refinement decodes symbols too: libjpeg needs its table defined.
                guard members[0].ac < 4, let table = acTables[members[0].ac] else { return nil }
                decoded = decodeAC(members[0].component, table: table, start: start, end: end, refine: high > 0, shift: low, &reader)
            }
            guard decoded else { return nil }
            return reader.endOfScan()
        }

        /// Where the entropy-coded data starting at `offset` ends: its first
        /// marker that is neither a stuffed byte nor a restart marker.
        static func skipEntropyData(_ jpeg: UnsafeRawBufferPointer, from offset: Int) -> Int? {
            guard let base = jpeg.baseAddress else { return nil }
            var p = offset
            while p + 1 < jpeg.count {
                // Most of a file is skipped here: memchr (vectorised), not a byte loop.
                guard let found = memchr(base + p, 0xFF, jpeg.count - p) else { return nil }
                p = UnsafeRawPointer(found) - base
                guard p + 1 < jpeg.count else { return nil }
                let next = jpeg[p + 1]
                if next != 0x00 && !(0xD0...0xD7).contains(next) && next != 0xFF { return p }
                p += next == 0xFF ? 1 : 2
            }
            return nil
        }

        /// Calls `body(component, block index)` for every block of a scan
        /// over `members`, in the scan's order, handling restart markers
        /// (predictors and end-of-band runs reset by `reset`); `false` on the first failure.
        private mutating func forEachBlock(
            _ members: [Int], _ reader: inout JPEGBitReader, reset: (inout State) -> Void,
            _ body: (inout State, Int, Int, inout JPEGBitReader) -> Bool
        ) -> Bool {
            var unit = 0
            var restarts = 0
            let interval = restartInterval
            func beginUnit(_ state: inout State, _ reader: inout JPEGBitReader) -> Bool {
                if interval > 0, unit > 0, unit % interval == 0 {
                    guard reader.restart(index: restarts) else { return false }
                    restarts += 1
                    reset(&state)
                }
                unit += 1
                return true
            }
            if members.count == 1 {
                let c = members[0]
                let (wide, high, stride) = (components[c].codedWide, components[c].codedHigh, components[c].blocksWide)
                for y in 0..<high {
                    for x in 0..<wide {
                        guard beginUnit(&self, &reader), body(&self, c, y * stride + x, &reader) else { return false }
                    }
                }
                return true
            }
            let geometry = members.map { c in (c, components[c].horizontal, components[c].vertical, components[c].blocksWide) }
            for my in 0..<mcusHigh {
                for mx in 0..<mcusWide {
                    guard beginUnit(&self, &reader) else { return false }
                    for (c, h, v, stride) in geometry {
                        for by in 0..<v {
                            for bx in 0..<h {
                                guard body(&self, c, (my * v + by) * stride + mx * h + bx, &reader) else { return false }
                            }
                        }
                    }
                }
            }
            return true
        }

        private mutating func decodeDC(_ members: [Int], tables: [Int], refine: Bool, shift: Int, _ reader: inout JPEGBitReader) -> Bool {
            for c in members { predictors[c] = 0 }
            // By component index (only the members' entries are read).
            var huffman = [JPEGHuffmanTable?](repeating: nil, count: components.count)
            for (c, table) in zip(members, tables) where table < 4 { huffman[c] = dcTables[table] }
            let layout = components.map { ($0.valueBase, $0.slotCount) }
            return forEachBlock(members, &reader, reset: { state in for c in members { state.predictors[c] = 0 } }) { state, c, block, reader in
                let slot = layout[c].0 + block * layout[c].1
                if refine {
                    if reader.bits(1) != 0 { state.values[slot] |= Int16(truncatingIfNeeded: 1 << shift) }
                    return true
                }
                guard let table = huffman[c], let size = table.decode(&reader) else { return false }
                let dc = state.predictors[c] + reader.signed(size)
                state.predictors[c] = dc
                let value = dc << shift
                guard let stored = Int16(exactly: value) else { return false }
                state.values[slot] = stored
                return true
            }
        }

        private mutating func decodeAC(
            _ c: Int, table: JPEGHuffmanTable, start: Int, end: Int, refine: Bool, shift: Int, _ reader: inout JPEGBitReader
        ) -> Bool {
            var endOfBandRun = 0
            let positive = 1 << shift, negative = -1 << shift
            let slots = components[c].slots, slotCount = components[c].slotCount
            let (valueBase, nonzeroBase) = (components[c].valueBase, components[c].nonzeroBase)
            return forEachBlock([c], &reader, reset: { _ in endOfBandRun = 0 }) { state, c, block, reader in
                let base = valueBase + block * slotCount
                var nonzero = state.nonzero[nonzeroBase + block]
                defer { state.nonzero[nonzeroBase + block] = nonzero }
                /// The correction bit of an already non-zero coefficient.
                func correct(_ natural: Int, _ state: inout State, _ reader: inout JPEGBitReader) {
                    guard reader.bits(1) != 0, slots[natural] >= 0 else { return }
                    let index = base + slots[natural]
                    let value = Int(state.values[index])
                    if value & positive == 0 {
                        state.values[index] = Int16(truncatingIfNeeded: value >= 0 ? value + positive : value + negative)
                    }
                }
                var k = start
                if !refine {
                    if endOfBandRun > 0 { endOfBandRun -= 1; return true }
                    while k <= end {
                        guard let symbol = table.decode(&reader) else { return false }
                        let run = symbol >> 4, size = symbol & 15
                        if size != 0 {
                            k += run
                            guard k <= end else { return false }
                            let natural = JPEGReducedScaleTranscoder.naturalOrder[k]
                            let value = reader.signed(size) << shift
                            nonzero |= 1 << UInt64(natural)
                            if slots[natural] >= 0 {
                                guard let stored = Int16(exactly: value) else { return false }
                                state.values[base + slots[natural]] = stored
                            }
                        } else if run == 15 {
                            k += 15
                        } else {
                            endOfBandRun = (1 << run) + reader.bits(run) - 1
                            break
                        }
                        k += 1
                    }
                    return true
                }
                if endOfBandRun == 0 {
                    while k <= end {
                        guard let symbol = table.decode(&reader) else { return false }
                        var run = symbol >> 4
                        let size = symbol & 15
                        var value = 0
                        if size != 0 {
                            guard size == 1 else { return false }
                            value = reader.bits(1) != 0 ? positive : negative
                        } else if run != 15 {
                            endOfBandRun = (1 << run) + reader.bits(run)
                            break
                        }
                        // Past already non-zero coefficients (a correction bit each) and `run` zero ones.
                        while k <= end {
                            let natural = JPEGReducedScaleTranscoder.naturalOrder[k]
                            if nonzero & (1 << UInt64(natural)) != 0 {
                                correct(natural, &state, &reader)
                            } else {
                                if run == 0 { break }
                                run -= 1
                            }
                            k += 1
                        }
                        if value != 0 {
                            guard k <= end else { return false }
                            let natural = JPEGReducedScaleTranscoder.naturalOrder[k]
                            nonzero |= 1 << UInt64(natural)
                            if slots[natural] >= 0 { state.values[base + slots[natural]] = Int16(value) }
                        }
                        k += 1
                    }
                }
                if endOfBandRun > 0 {
                    while k <= end {
                        let natural = JPEGReducedScaleTranscoder.naturalOrder[k]
                        if nonzero & (1 << UInt64(natural)) != 0 { correct(natural, &state, &reader) }
                        k += 1
                    }
                    endOfBandRun -= 1
                }
                return true
            }
        }

        // MARK: Writing

        /// The baseline file: SOI, the copied segments, SOF0, the two
        /// Huffman tables, one scan, EOI; `nil` for a value the tables cannot code.
        func encode() -> [UInt8]? {
            var out: [UInt8] = [0xFF, 0xD8]
            out += copied
            let n = components.count
            out += [0xFF, 0xC0, UInt8((8 + 3 * n) >> 8), UInt8((8 + 3 * n) & 0xFF), 8,
                    UInt8(frame.size.height >> 8), UInt8(frame.size.height & 0xFF),
                    UInt8(frame.size.width >> 8), UInt8(frame.size.width & 0xFF), UInt8(n)]
            for c in components {
                out += [c.id, UInt8(c.horizontal << 4 | c.vertical), UInt8(c.quantizationTable)]
            }
            out += Codes.segment
            out += [0xFF, 0xDA, 0, UInt8(6 + 2 * n), UInt8(n)]
            for c in components { out += [c.id, 0x00] }
            out += [0, 63, 0]
            var writer = JPEGBitWriter(reservingCapacity: values.count / 2)
            var predictors = [Int](repeating: 0, count: n)
            let values = values
            // Per component, outside the block loop: its base, slot count
            // and the range of its kept AC coefficients in `kept`.
            let layout = components.map { ($0.valueBase, $0.slotCount) }
            let (dcCodes, acCodes) = (Codes.dc, Codes.ac)
            // Every component's kept AC coefficients in zig-zag order: the
            // zig-zag index, the slot, and the bias its value is written
            // with. At 1/4, a coefficient whose last refinement was skipped
            // is known to lie in [|v|, |v| + 2^bits) times its sign: it is
            // written at the middle of that interval (rounded toward zero),
            // not at its low end. (At 1/8 every kept coefficient is complete.)
            var kept: [(zigzag: Int, slot: Int, bias: Int)] = []
            var keptRanges: [Range<Int>] = []
            for component in components {
                let first = kept.count
                for k in 1..<64 where component.slots[JPEGReducedScaleTranscoder.naturalOrder[k]] >= 0 {
                    let bias = mode == .quarter ? ((1 << component.decodedBits[k]) - 1) >> 1 : 0
                    kept.append((k, component.slots[JPEGReducedScaleTranscoder.naturalOrder[k]], bias))
                }
                keptRanges.append(first..<kept.count)
            }
            let zeroRun = acCodes[0xF0], endOfBlock = acCodes[0]
            func block(_ c: Int, _ index: Int) -> Bool {
                let (valueBase, slotCount) = layout[c]
                let base = valueBase + index * slotCount
                let dc = Int(values[base])
                let difference = dc - predictors[c]
                predictors[c] = dc
                let size = Self.bitLength(difference)
                guard size <= 11 else { return false }
                // A code and its value bits in one write (at most 15 bits here, 19 below).
                let dcCode = dcCodes[size]
                writer.write(dcCode.code << size | (difference < 0 ? difference - 1 : difference) & ((1 << size) - 1), bits: dcCode.length + size)
                var last = 0
                for entry in kept[keptRanges[c]] {
                    var value = Int(values[base + entry.slot])
                    if value == 0 { continue }
                    value += value > 0 ? entry.bias : -entry.bias
                    var run = entry.zigzag - last - 1
                    while run > 15 {
                        writer.write(zeroRun.code, bits: zeroRun.length)
                        run -= 16
                    }
                    let size = Self.bitLength(value)
                    guard size <= 10 else { return false }
                    let code = acCodes[run << 4 | size]
                    writer.write(code.code << size | (value < 0 ? value - 1 : value) & ((1 << size) - 1), bits: code.length + size)
                    last = entry.zigzag
                }
                if last < 63 { writer.write(endOfBlock.code, bits: endOfBlock.length) }
                return true
            }
            if n == 1 {
                let c = components[0]
                for y in 0..<c.codedHigh {
                    for x in 0..<c.codedWide where !block(0, y * c.blocksWide + x) { return nil }
                }
            } else {
                let geometry = components.enumerated().map { ($0, $1.horizontal, $1.vertical, $1.blocksWide) }
                for my in 0..<mcusHigh {
                    for mx in 0..<mcusWide {
                        for (index, h, v, stride) in geometry {
                            for by in 0..<v {
                                for bx in 0..<h where !block(index, (my * v + by) * stride + mx * h + bx) {
                                    return nil
                                }
                            }
                        }
                    }
                }
            }
            out += writer.finish()
            out += [0xFF, 0xD9]
            return out
        }

        /// The bits needed for `|value|` (JPEG's magnitude category).
        static func bitLength(_ value: Int) -> Int {
            value == 0 ? 0 : Int.bitWidth - value.magnitude.leadingZeroBitCount
        }
    }

    /// The output's Huffman codes: DC category 0 in 2 bits, 1–11 in 4; AC
    /// end-of-block in 2 bits, the other 161 symbols (every run/size pair
    /// of 8-bit data, and the 16-zero run) in 9. Canonical, so the DHT
    /// segment is counts and symbols in code order.
    enum Codes {
        /// (code, length) by DC category.
        static let dc: [(code: Int, length: Int)] = [(0, 2)] + (1...11).map { (3 + $0, 4) }
        /// AC symbols in code order after end-of-block.
        static let acSymbols: [UInt8] = (0..<16).flatMap { run in (1...10).map { UInt8(run << 4 | $0) } } + [0xF0]
        /// (code, length) by AC symbol (`run << 4 | size`).
        static let ac: [(code: Int, length: Int)] = {
            var table = [(code: Int, length: Int)](repeating: (0, 0), count: 256)
            table[0] = (0, 2)
            for (index, symbol) in acSymbols.enumerated() { table[Int(symbol)] = (128 + index, 9) }
            return table
        }()
        /// The DHT segment defining both, as DC table 0 and AC table 0.
        static let segment: [UInt8] = {
            var dcCounts = [UInt8](repeating: 0, count: 16)
            dcCounts[1] = 1
            dcCounts[3] = 11
            var acCounts = [UInt8](repeating: 0, count: 16)
            acCounts[1] = 1
            acCounts[8] = UInt8(acSymbols.count)
            let body: [UInt8] = [0x00] + dcCounts + (0...11).map { UInt8($0) } + [0x10] + acCounts + [0x00] + acSymbols
            return [0xFF, 0xC4, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }()
    }
}
