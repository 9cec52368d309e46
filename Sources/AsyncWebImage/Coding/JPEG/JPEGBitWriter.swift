/// Writes entropy-coded data: bits most significant first, a zero byte
/// stuffed after every `FF`, the last byte padded with one bits.
struct JPEGBitWriter {
    private(set) var bytes: [UInt8] = []
    /// Bits not yet written, right-aligned.
    private var buffer: UInt64 = 0
    private var count = 0

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends the low `n` bits (0...24) of `value`.
    @inline(__always)
    mutating func write(_ value: Int, bits n: Int) {
        buffer = buffer << UInt64(n) | (UInt64(truncatingIfNeeded: value) & ((1 << UInt64(n)) - 1))
        count += n
        while count >= 8 {
            count -= 8
            let byte = UInt8(truncatingIfNeeded: buffer >> UInt64(count))
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }
        }
    }

    /// Pads the last byte with one bits and returns everything written.
    mutating func finish() -> [UInt8] {
        if count > 0 { write((1 << (8 - count)) - 1, bits: 8 - count) }
        return bytes
    }
}
