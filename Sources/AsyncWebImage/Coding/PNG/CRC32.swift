/// The CRC-32 of ISO 3309 / ITU-T V.42, as PNG chunks use it.
///
/// Only the progressive PNG decoder needs it, to re-seal the partly received
/// last IDAT chunk of a download in progress.
enum CRC32 {
    /// The byte-wise lookup table of the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    /// Continues `crc` (the result of a previous call, or 0 to start) over `bytes`.
    ///
    /// - Complexity: O(`bytes.count`).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8)
            }
        }
        return ~value
    }
}
