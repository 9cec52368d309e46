import CDeflate

/// The CRC-32 of ISO 3309 / ITU-T V.42, as PNG chunks and gzip use it:
/// libdeflate's (linked for inflating PNG data anyway), the one owner of
/// this checksum in the package.
enum CRC32 {
    /// Continues `crc` (the result of a previous call, or 0 to start) over `bytes`.
    ///
    /// - Complexity: O(`bytes.count`), with libdeflate's folded carry-less multiply where the CPU has it.
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return UInt32(libdeflate_crc32(crc, base, bytes.count))
    }
}
