/// One DHT table, validated the way libjpeg-turbo validates it, with the lookup tables the
/// DC-only entropy loop reads.
///
/// Owns its tables; `lookup` hands raw pointers to the hot loop so that it touches no
/// reference counts or bounds checks.
final class HuffmanSpec {
    /// Bits looked at per table probe. 2^lookahead entries per table: at 11 bits the two
    /// tables of an AC class take 12 KiB; 10 to 13 measured within noise of each other,
    /// 13 slightly slower (README.md).
    static let lookahead = 11

    /// Raw views of the tables; valid while the spec lives.
    let lookup: HuffmanLookup

    /// Builds the canonical code of JPEG Annex C from `counts[1...16]` and `symbols`.
    init(counts: [Int], symbols: [UInt8], isDC: Bool, at offset: Int) throws(DCDecodeFallback) {
        // libjpeg rejects DC categories above 15 and any length whose codes overflow it
        // (which also rules out an all-ones code).
        if isDC, symbols.contains(where: { $0 > 15 }) {
            throw DCDecodeFallback(.badHuffmanTable, at: offset)
        }
        let size = 1 << Self.lookahead
        let single = UnsafeMutablePointer<UInt16>.allocate(capacity: size)
        single.initialize(repeating: 0, count: size)
        let skip = UnsafeMutablePointer<UInt32>.allocate(capacity: size)
        skip.initialize(repeating: 0, count: size)
        let maxCode = UnsafeMutablePointer<Int32>.allocate(capacity: 17)
        maxCode.initialize(repeating: -1, count: 17)
        let valueOffset = UnsafeMutablePointer<Int32>.allocate(capacity: 17)
        valueOffset.initialize(repeating: 0, count: 17)
        let values = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        values.initialize(repeating: 0, count: 256)
        for (index, symbol) in symbols.enumerated() { values[index] = symbol }
        lookup = HuffmanLookup(single: single, skip: skip, maxCode: maxCode, valueOffset: valueOffset, values: values)

        var code = 0
        var index = 0
        for length in 1...16 {
            let count = counts[length]
            if count > 0 {
                valueOffset[length] = Int32(index - code)
                for _ in 0..<count {
                    // Checked before the code indexes the table: an overflowing length
                    // would otherwise write past it (found by the differential fuzzer).
                    if code >= 1 << length { throw DCDecodeFallback(.badHuffmanTable, at: offset) }
                    if length <= Self.lookahead {
                        let fill = Self.lookahead - length
                        let first = code << fill
                        let entry = UInt16(length) | UInt16(symbols[index]) << 8
                        for suffix in 0..<(1 << fill) { single[first + suffix] = entry }
                    }
                    code += 1
                    index += 1
                }
                maxCode[length] = Int32(code - 1)
                if code >= 1 << length { throw DCDecodeFallback(.badHuffmanTable, at: offset) }
            }
            code <<= 1
        }
        if isDC { Self.fillDifference(skip, single) } else { Self.fillSkip(skip, single) }
    }

    deinit {
        lookup.single.deallocate()
        lookup.skip.deallocate()
        lookup.maxCode.deallocate()
        lookup.valueOffset.deallocate()
        lookup.values.deallocate()
    }

    /// For every `lookahead`-bit window that holds a whole DC category code and its
    /// magnitude bits: the bits to drop (0–4) and the decoded difference (bits 16–31,
    /// signed). 0 when they do not fit.
    private static func fillDifference(_ table: UnsafeMutablePointer<UInt32>, _ single: UnsafeMutablePointer<UInt16>) {
        let bits = lookahead
        for window in 0..<(1 << bits) {
            let entry = single[window]
            let length = Int(entry & 31)
            let category = Int(entry >> 8)
            guard entry != 0, length + category <= bits else { continue }
            var difference = 0
            if category != 0 {
                let raw = (window >> (bits - length - category)) & ((1 << category) - 1)
                difference = raw < 1 << (category - 1) ? raw - (1 << category) + 1 : raw
            }
            table[window] = UInt32(length + category) | UInt32(UInt16(truncatingIfNeeded: difference)) << 16
        }
    }

    /// For every `lookahead`-bit window, the run of whole AC symbols (code and magnitude
    /// bits) it holds, as one skip: bits 0–4 the bits to drop, 8–15 the coefficient
    /// positions advanced, 16–23 the advance before the last symbol (to tell whether the
    /// block ends inside the window), bit 24 set when the last symbol ends the block (EOB).
    /// 0 when not even one symbol fits.
    private static func fillSkip(_ skip: UnsafeMutablePointer<UInt32>, _ single: UnsafeMutablePointer<UInt16>) {
        let bits = lookahead
        let mask = (1 << bits) - 1
        for window in 0...mask {
            var used = 0
            var advance = 0
            var beforeLast = 0
            var endsBlock = false
            var symbolCount = 0
            while used < bits {
                let entry = single[(window << used) & mask]
                let length = Int(entry & 31)
                if entry == 0 || used + length > bits { break }
                let symbol = Int(entry >> 8)
                let magnitude = symbol & 15
                let run = symbol >> 4
                if magnitude == 0 && run != 15 {
                    used += length
                    beforeLast = advance
                    endsBlock = true
                    symbolCount += 1
                    break
                }
                if used + length + magnitude > bits { break }
                used += length + magnitude
                beforeLast = advance
                advance += magnitude != 0 ? run + 1 : 16
                symbolCount += 1
                // Past coefficient 63 the block is over whatever follows.
                if advance >= 63 { break }
            }
            if symbolCount > 0 {
                skip[window] = UInt32(used) | UInt32(advance) << 8 | UInt32(beforeLast) << 16
                    | (endsBlock ? 1 << 24 : 0)
            }
        }
    }
}

/// Raw pointers into a `HuffmanSpec`'s tables, copied into the decoder's per-block plan.
struct HuffmanLookup {
    /// Per window: code length (bits 0–4, 0 when the code is longer than the window or
    /// unused) and symbol (bits 8–15).
    let single: UnsafeMutablePointer<UInt16>
    /// Per window: for an AC table the multi-symbol skip described at `HuffmanSpec.fillSkip`,
    /// for a DC table the whole difference (`HuffmanSpec.fillDifference`).
    let skip: UnsafeMutablePointer<UInt32>
    /// Largest code of each length, -1 when none (index 1...16).
    let maxCode: UnsafeMutablePointer<Int32>
    /// Symbol index minus code, per length.
    let valueOffset: UnsafeMutablePointer<Int32>
    /// Symbols in code order.
    let values: UnsafeMutablePointer<UInt8>
}
