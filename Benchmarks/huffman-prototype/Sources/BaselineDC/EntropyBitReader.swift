/// Reads the entropy-coded segment MSB first, removing 0xFF00 stuffing, stopping at
/// markers.
///
/// Past a marker or the end it supplies zero bits, as libjpeg-turbo does, but counts them
/// (`fakeBits`): libjpeg-turbo warns as soon as one of them is used, so the decoder
/// falls back when one was (`usedFakeBits`).
struct EntropyBitReader {
    let base: UnsafePointer<UInt8>
    let end: Int
    /// First byte not yet in `buffer` (bits of it may sit below `count`, see `ensure32`).
    var position: Int
    /// Unread bits, most significant first.
    var buffer: UInt64 = 0
    /// How many of `buffer`'s top bits are valid.
    var count = 0
    /// How many of the valid bits, at the bottom, are zero fill past a marker or the end.
    var fakeBits = 0

    init(base: UnsafePointer<UInt8>, end: Int, position: Int) {
        self.base = base
        self.end = end
        self.position = position
    }

    /// Guarantees at least 32 valid bits: one code (≤ 16) and its magnitude (≤ 15).
    ///
    /// Loads eight bytes at once when none of them is 0xFF. The bits of the last, partly
    /// counted byte are left in place below `count`; the next load ORs the same byte
    /// over them, so they never need clearing. The rare byte-wise path is a by-value
    /// call so that the reader never has its address taken and stays in registers.
    @inline(__always)
    mutating func ensure32() {
        guard count < 32 else { return }
        if position + 8 <= end {
            let word = UInt64(bigEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let inverted = ~word
            if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                buffer |= word &>> UInt64(count)
                position += (63 - count) >> 3
                count |= 56
                return
            }
        }
        self = refilledByBytes()
    }

    @inline(__always)
    func peek(_ bits: Int) -> Int { Int(truncatingIfNeeded: buffer &>> UInt64(64 - bits)) }

    @inline(__always)
    mutating func consume(_ bits: Int) {
        buffer = buffer &<< UInt64(bits)
        count -= bits
    }

    var usedFakeBits: Bool { fakeBits > count }

    @inline(never)
    private func refilledByBytes() -> EntropyBitReader {
        var next = self
        next.fillByBytes()
        return next
    }

    private mutating func fillByBytes() {
        buffer = count == 0 ? 0 : buffer & (~0 &<< UInt64(64 - count))
        while count <= 56 {
            var byte: UInt8 = 0
            if position < end, base[position] != 0xFF {
                byte = base[position]
                position += 1
            } else if position < end {
                // 0xFF, any 0xFF fill, then 0x00 is a data 0xFF; anything else a marker.
                var next = position + 1
                while next < end, base[next] == 0xFF { next += 1 }
                if next < end, base[next] == 0 {
                    byte = 0xFF
                    position = next + 1
                } else {
                    fakeBits += 8
                }
            } else {
                fakeBits += 8
            }
            buffer |= UInt64(byte) &<< UInt64(56 - count)
            count += 8
        }
    }

    /// Steps past the marker that must follow the data, which must be `expected`. Whole
    /// bytes between the last bit used and the marker make libjpeg-turbo warn
    /// ("extraneous bytes before marker"), so they are a fallback too; 0xFF fill before
    /// the marker code is allowed, as in libjpeg.
    @inline(never)
    func skippingToMarker(_ expected: UInt8) throws(DCDecodeFallback) -> EntropyBitReader {
        let reason: DCDecodeFallback.Reason = expected == 0xD9 ? .unexpectedTrailer : .badRestart
        guard count - fakeBits < 8, position < end, base[position] == 0xFF else {
            throw DCDecodeFallback(reason, at: position)
        }
        var next = position + 1
        while next < end, base[next] == 0xFF { next += 1 }
        guard next < end, base[next] == expected else { throw DCDecodeFallback(reason, at: next) }
        return EntropyBitReader(base: base, end: end, position: next + 1)
    }
}
