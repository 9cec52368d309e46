/// The 24 bytes the disk store appends to every entry file, after the data.
///
/// ```
/// "AWIC"  version(1) 0 0 0  generation (UInt64 LE)  data length (UInt64 LE)
/// ```
///
/// It is how a read tells a whole entry from a damaged one: a file that is
/// shorter than its trailer, whose last bytes are not a trailer, or whose
/// trailer counts a different length, was truncated or overwritten by
/// something other than the store (the store itself only ever renames
/// complete files into place) and is treated as a miss and removed. At the
/// end rather than the start so the file stays a valid image for tools that
/// open it (JPEG and PNG decoders ignore bytes after the image).
///
/// The generation is random per write; a sidecar file of extended data
/// carries the generation of the entry it belongs to, so a sidecar left from
/// an older write of the same key is recognised and ignored.
struct DiskEntryTrailer: Equatable {
    static let size = 24
    private static let magic: [UInt8] = Array("AWIC".utf8)
    private static let version: UInt8 = 1

    /// Random per write.
    var generation: UInt64
    /// Bytes of data before the trailer.
    var length: UInt64

    init(generation: UInt64, length: UInt64) {
        self.generation = generation
        self.length = length
    }

    /// Parses the last ``size`` bytes of an entry file; `nil` when they are not a trailer.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.size, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version else { return nil }
        generation = Self.readUInt64(bytes, at: 8)
        length = Self.readUInt64(bytes, at: 16)
    }

    /// The encoded trailer.
    var bytes: [UInt8] {
        var bytes = Self.magic + [Self.version, 0, 0, 0]
        bytes.reserveCapacity(Self.size)
        for value in [generation, length] {
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        return bytes
    }

    static func readUInt64(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}
