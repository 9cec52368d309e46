import Foundation

/// Rewrites the CRC of every complete PNG chunk, so that mutated inputs get
/// past libspng's CRC check and reach the decoder itself: without it nearly
/// every mutation of a PNG dies at its first CRC.
package enum PNGResealing {
    /// Whether an input of `count` bytes is resealed: half of them are, so
    /// the CRC checks themselves stay fuzzed too. Independent of the option
    /// selector (`count % 4`).
    package static func applies(toCount count: Int) -> Bool { (count >> 2) & 1 == 0 }

    /// `data` with correct CRCs on every complete chunk after the signature
    /// (data that is not a PNG is returned as is).
    package static func resealed(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        guard bytes.count >= 8, bytes[0] == 0x89, bytes[1] == 0x50 else { return data }
        var offset = 8
        // Every step moves at least 12 bytes forward.
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length <= bytes.count - offset - 12 else { break }
            let crcAt = offset + 8 + length
            let crc = crc32(bytes[(offset + 4)..<crcAt])
            for (index, shift) in [24, 16, 8, 0].enumerated() {
                bytes[crcAt + index] = UInt8(truncatingIfNeeded: crc >> UInt32(shift))
            }
            offset = crcAt + 4
        }
        return Data(bytes)
    }

    /// The CRC-32 of PNG (and zlib), bit by bit: slow, but only for the harness.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
