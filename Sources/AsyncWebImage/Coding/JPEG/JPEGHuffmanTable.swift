/// A Huffman table of a DHT segment, built for decoding: a 9-bit lookup
/// for the short codes, canonical code ranges per length for the rest.
///
/// Built and checked as libjpeg does (`jpeg_make_d_derived_tbl`): at most
/// 256 symbols, no code running out of its length's code space, DC symbols
/// at most 15; a table that fails is `nil`.
struct JPEGHuffmanTable: Sendable {
    private static let lookupBits = 9
    /// For each 9-bit prefix: `length << 8 | symbol`, or 0 when the code is longer.
    private var lookup = [UInt16](repeating: 0, count: 1 << lookupBits)
    /// The largest code of each length 1...16 (index = length), -1 when none.
    private var maxCode = [Int32](repeating: -1, count: 18)
    /// Index in ``symbols`` of the first code of each length, minus that code.
    private var offset = [Int32](repeating: 0, count: 17)
    private var symbols: [UInt8]

    /// A table from the 16 code-length counts and the symbols of a DHT entry.
    init?(counts: [UInt8], symbols: [UInt8], isDC: Bool) {
        guard counts.count == 16, symbols.count == counts.reduce(0, { $0 + Int($1) }), symbols.count <= 256 else { return nil }
        if isDC, symbols.contains(where: { $0 > 15 }) { return nil }
        self.symbols = symbols
        var code: Int32 = 0
        var index: Int32 = 0
        for length in 1...16 {
            let n = Int32(counts[length - 1])
            if n > 0 {
                offset[length] = index - code
                for _ in 0..<n {
                    if length <= Self.lookupBits {
                        let shift = Self.lookupBits - length
                        let base = Int(code) << shift
                        for fill in 0..<(1 << shift) {
                            lookup[base + fill] = UInt16(length << 8) | UInt16(symbols[Int(index)])
                        }
                    }
                    code += 1
                    index += 1
                }
                maxCode[length] = code - 1
            }
            // libjpeg: a code may not use up its length's code space
            // (an all-ones code is reserved).
            if code >= Int32(1) << Int32(length) { return nil }
            code <<= 1
        }
        maxCode[17] = Int32.max
    }

    /// The next symbol, or `nil` for a code no symbol has.
    @inline(__always)
    func decode(_ reader: inout JPEGBitReader) -> Int? {
        let entry = lookup[reader.peek(Self.lookupBits)]
        if entry != 0 {
            reader.skip(Int(entry >> 8))
            return Int(entry & 0xFF)
        }
        var code = Int32(reader.bits(Self.lookupBits))
        var length = Self.lookupBits
        while length < 16 {
            code = code << 1 | Int32(reader.bits(1))
            length += 1
            if code <= maxCode[length] { return Int(symbols[Int(code + offset[length])]) }
        }
        return nil
    }
}
