/// Shrinks a complete progressive JPEG to what a 1/8-scale decode reads.
///
/// At 1/8 scale libjpeg computes each output pixel of a full-resolution
/// component from the DC coefficient alone (a 1×1 IDCT), yet a progressive
/// decode still Huffman-decodes every AC scan and, with AC data present,
/// cannot skip it. Dropping those components' AC scans removes most of the
/// file (typically 85–90%) and most of the decode time.
///
/// Two details keep the result *identical* to decoding the whole file at
/// 1/8, not merely close:
/// - Subsampled components are decoded by libjpeg-turbo at a larger IDCT
///   size instead of being upsampled (4:2:0 chroma at 1/8 uses a 2×2 IDCT,
///   which reads AC coefficients), so their AC scans are kept: a component
///   keeps them when libjpeg would double its IDCT size, i.e. when
///   `maxH % (2·h) == 0` and `maxV % (2·v) == 0`.
/// - With AC coefficients missing, libjpeg applies "block smoothing" to
///   progressive images, which changes the output. So each pruned
///   component gets a tiny replacement scan sending all its AC
///   coefficients as zero (runs of end-of-band, 15 symbols of a 4-bit
///   Huffman code), which tells libjpeg every coefficient is known.
///
/// Two facts of the format make the surgery safe: a progressive scan with
/// `Ss > 0` carries AC coefficients of exactly one component (the standard
/// requires it; anything else makes the pruner decline), and every segment
/// other than a dropped scan is kept in order, so each kept scan sees the
/// same Huffman tables and restart interval as in the original. A dropped
/// scan's header is checked as libjpeg checks it (its length, its AC
/// Huffman table and its components' quantisation tables by the scanner,
/// its progression parameters here), so a
/// file libjpeg refuses for those is refused at 1/8 too; damage inside a
/// dropped scan's entropy data goes unnoticed: the thumbnail never needed
/// it, and checking it would cost what pruning saves.
enum JPEGScanPruner {
    /// The bytes of a stream equivalent to `jpeg` at 1/8 scale, or `nil`
    /// when pruning does not apply (not progressive Huffman, scans not all
    /// recorded, nothing to drop, or a structure it does not expect).
    ///
    /// - Parameter scanner: a recording scanner that has seen all of `jpeg`, up to EOI.
    static func eighthScaleStream(_ jpeg: UnsafeRawBufferPointer, scanner: JPEGMarkerScanner) -> [UInt8]? {
        guard let frame = scanner.frame, frame.marker == 0xC2, scanner.scansAreComplete,
              let end = scanner.endOfImageOffset, !frame.components.isEmpty,
              frame.components.allSatisfy({ (1...4).contains($0.horizontal) && (1...4).contains($0.vertical) }),
              Set(frame.components.map(\.id)).count == frame.components.count
        else { return nil }
        let maxH = frame.components.map(\.horizontal).max() ?? 1
        let maxV = frame.components.map(\.vertical).max() ?? 1
        // Components read through a 1×1 IDCT at 1/8: their AC data is unused.
        let pruned = frame.components.filter { maxH % (2 * $0.horizontal) != 0 || maxV % (2 * $0.vertical) != 0 }
        let prunedIDs = Set(pruned.map(\.id))
        let dropped = scanner.scans.filter { $0.spectralStart > 0 && $0.componentIDs.allSatisfy(prunedIDs.contains) }
        // A dropped scan libjpeg would refuse (its parameters — which also
        // hold an AC scan to one component —, its Huffman table, a
        // quantisation table not yet defined) makes the pruner decline, so
        // the thumbnail fails as the full decode does.
        guard !dropped.isEmpty, dropped.allSatisfy({
            $0.hasValidProgressiveParameters && $0.acTablesUsable && $0.quantizationTablesDefined
        }) else { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(end - dropped.reduce(0) { $0 + $1.range.count } + 64 + pruned.count * 64)
        // Typed buffers, so each append is one memcpy.
        func append(_ range: Range<Int>) {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: jpeg[range]).assumingMemoryBound(to: UInt8.self))
        }
        var copied = 0
        for scan in dropped {
            append(copied..<scan.range.lowerBound)
            copied = scan.range.upperBound
        }
        append(copied..<end)
        output.append(contentsOf: zeroACScans(for: pruned, frame: frame, maxH: maxH, maxV: maxV))
        output.append(contentsOf: [0xFF, 0xD9])
        return output
    }

    /// DRI 0 (no restart markers in what follows), one AC Huffman table, and
    /// per component a scan coding all its AC coefficients as zero.
    static func zeroACScans(for components: [JPEGMarkerScanner.Component], frame: JPEGMarkerScanner.Frame, maxH: Int, maxV: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x00]
        // AC table 0: the 15 end-of-band-run symbols 0x00, 0x10, ..., 0xE0,
        // all 4 bits long, so symbol `r << 4` has the canonical code `r`.
        var counts = [UInt8](repeating: 0, count: 16)
        counts[3] = 15
        let table: [UInt8] = [0x10] + counts + (0..<15).map { UInt8($0 << 4) }
        bytes += [0xFF, 0xC4, UInt8((table.count + 2) >> 8), UInt8((table.count + 2) & 0xFF)] + table
        for component in components {
            // A non-interleaved scan covers the component's own blocks (libjpeg's width_in_blocks).
            let wide = (frame.size.width * component.horizontal + maxH * 8 - 1) / (maxH * 8)
            let high = (frame.size.height * component.vertical + maxV * 8 - 1) / (maxV * 8)
            // SOS: one component, AC table 0; Ss 1, Se 63, Ah 0, Al 0.
            bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, component.id, 0x00, 0x01, 0x3F, 0x00]
            var writer = BitWriter()
            var remaining = wide * high
            while remaining > 0 {
                // EOBr: a run of 2^r + (r extra bits) blocks, up to 32767.
                let run = min(remaining, 32_767)
                let r = Int.bitWidth - 1 - run.leadingZeroBitCount
                writer.write(UInt32(r), bits: 4)
                writer.write(UInt32(run - (1 << r)), bits: r)
                remaining -= run
            }
            bytes += writer.finish()
        }
        return bytes
    }

    /// Packs bits most significant first, with JPEG's byte stuffing (a zero
    /// after every 0xFF) and padding with one bits.
    struct BitWriter {
        private var bytes: [UInt8] = []
        private var accumulator: UInt32 = 0
        private var count = 0

        mutating func write(_ value: UInt32, bits: Int) {
            for shift in stride(from: bits - 1, through: 0, by: -1) {
                accumulator = accumulator << 1 | (value >> UInt32(shift) & 1)
                count += 1
                if count == 8 { flush() }
            }
        }

        mutating func finish() -> [UInt8] {
            while count != 0 { write(1, bits: 1) }
            return bytes
        }

        private mutating func flush() {
            let byte = UInt8(truncatingIfNeeded: accumulator)
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }
            accumulator = 0
            count = 0
        }
    }
}
