import Foundation

/// A valid gzip stream of `count` zero bytes, built directly instead of by
/// compressing them (a gigabyte of zeros would take seconds to compress).
///
/// One fixed-Huffman deflate block: a literal 0, then copies of 258 bytes
/// at distance 1 (13 bits each), then an empty final block; the trailer has
/// the CRC-32 and the size of the decoded bytes. Eight copies are exactly 13
/// bytes, so the body is one 13-byte pattern repeated. 1 GiB of zeros comes
/// to about 6.8 MB.
enum GzipBomb {
    /// Zeros decoded from the stream returned by ``make(copyGroups:)``.
    static func decodedSize(copyGroups: Int) -> Int { 1 + 258 * (1 + 8 * copyGroups) }

    /// The gzip stream of ``decodedSize(copyGroups:)`` zeros.
    static func make(copyGroups: Int) -> Data {
        var bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]  // gzip header: deflate, no name, unknown OS
        var head = BitWriter()
        head.bits(0, 1)              // BFINAL = 0
        head.bits(1, 2)              // BTYPE = fixed Huffman
        head.code(0x30, 8)           // literal 0
        head.copy258()               // 11 + 13 bits: byte-aligned again
        bytes += head.finish()
        var group = BitWriter()
        for _ in 0..<8 { group.copy258() }
        let pattern = group.finish()
        precondition(pattern.count == 13)
        bytes.reserveCapacity(bytes.count + 13 * copyGroups + 16)
        for _ in 0..<copyGroups { bytes += pattern }
        var tail = BitWriter()
        tail.code(0, 7)              // end of block
        tail.bits(1, 1)              // BFINAL = 1
        tail.bits(1, 2)              // fixed Huffman
        tail.code(0, 7)              // end of block
        bytes += tail.finish()
        let size = decodedSize(copyGroups: copyGroups)
        bytes += littleEndian(crc32OfZeros(size)) + littleEndian(UInt32(truncatingIfNeeded: size))
        return Data(bytes)
    }

    /// gzip's CRC-32 of `count` zero bytes in O(log count): the register
    /// update for a zero bit is linear, a 32×32 matrix over GF(2), raised to
    /// the power 8·count by squaring (zlib's `crc32_combine` method).
    static func crc32OfZeros(_ count: Int) -> UInt32 {
        func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var sum: UInt32 = 0, vector = vector, index = 0
            while vector != 0 {
                if vector & 1 != 0 { sum ^= matrix[index] }
                vector >>= 1
                index += 1
            }
            return sum
        }
        func square(_ matrix: [UInt32]) -> [UInt32] { (0..<32).map { times(matrix, matrix[$0]) } }
        var oneBit = [UInt32](repeating: 0, count: 32)
        oneBit[0] = 0xEDB8_8320
        for index in 1..<32 { oneBit[index] = 1 << UInt32(index - 1) }
        var power = square(square(square(oneBit)))  // one zero byte
        var register: UInt32 = 0xFFFF_FFFF
        var remaining = count
        while remaining > 0 {
            if remaining & 1 != 0 { register = times(power, register) }
            power = square(power)
            remaining >>= 1
        }
        return register ^ 0xFFFF_FFFF
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt8 = 0
        var used = 0

        mutating func bits(_ value: UInt32, _ count: Int) {
            for index in 0..<count {
                current |= UInt8((value >> UInt32(index)) & 1) << UInt8(used)
                used += 1
                if used == 8 {
                    bytes.append(current)
                    current = 0
                    used = 0
                }
            }
        }

        mutating func code(_ code: UInt32, _ length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) { bits((code >> UInt32(index)) & 1, 1) }
        }

        /// Length 258 (code 285: 8 bits, no extra) at distance 1 (code 0: 5 bits, no extra).
        mutating func copy258() {
            code(0xC5, 8)
            code(0, 5)
        }

        mutating func finish() -> [UInt8] {
            if used > 0 { bytes.append(current) }
            current = 0
            used = 0
            return bytes
        }
    }
}
