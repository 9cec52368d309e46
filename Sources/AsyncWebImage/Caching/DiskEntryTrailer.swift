import CXXHash

/// The 32 bytes the disk store appends to every entry file, after the data.
///
/// ```
/// "AWIC"  version(2) 0 0 0  generation (UInt64 LE)  data length (UInt64 LE)  checksum (UInt64 LE)
/// ```
///
/// It is how a read tells a whole entry from a damaged one: a file that is
/// shorter than its trailer, whose last bytes are not a trailer, whose
/// trailer counts a different length, or whose data no longer has the
/// trailer's checksum, was truncated, overwritten or corrupted by something
/// other than the store (the store itself only ever renames complete files
/// into place) and is treated as a miss and removed. At the end rather than
/// the start so the file stays a valid image for tools that open it (JPEG
/// and PNG decoders ignore bytes after the image).
///
/// The checksum is xxHash's XXH3 (64 bits) of the data: a bit flipped on
/// disk, with length and trailer intact, is caught on every read instead of
/// being served as different pixels. XXH3 runs at memory speed (tens of
/// GB/s), a few microseconds for a large image; it is not a defence against
/// someone who can write the directory, only against decay and stray writes.
///
/// Entries of version 1 (24 bytes, no checksum, written by earlier versions) are
/// not trusted: they parse as no trailer, so the first read removes them and
/// reports a miss, and the image is fetched and stored again with a checksum.
/// A process still running the older library sees the new entries the same
/// way while both share a directory.
///
/// The generation is random per write; a sidecar file of extended data
/// carries the generation of the entry it belongs to, so a sidecar left from
/// an older write of the same key is recognised and ignored.
package struct DiskEntryTrailer: Equatable {
    static let size = 32
    private static let magic: [UInt8] = Array("AWIC".utf8)
    private static let version: UInt8 = 2

    /// Random per write.
    var generation: UInt64
    /// Bytes of data before the trailer.
    var length: UInt64
    /// XXH3-64 of the data (``checksum(of:)``).
    var checksum: UInt64

    init(generation: UInt64, length: UInt64, checksum: UInt64) {
        self.generation = generation
        self.length = length
        self.checksum = checksum
    }

    /// Parses the last ``size`` bytes of an entry file; `nil` when they are
    /// not a trailer of this version.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.size, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version else { return nil }
        generation = Self.readUInt64(bytes, at: 8)
        length = Self.readUInt64(bytes, at: 16)
        checksum = Self.readUInt64(bytes, at: 24)
    }

    /// The checksum of an entry's data: XXH3, 64 bits, no seed.
    package static func checksum(of data: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(awi_xxh3_64(data.baseAddress, data.count))
    }

    /// The encoded trailer.
    var bytes: [UInt8] {
        var bytes = Self.magic + [Self.version, 0, 0, 0]
        bytes.reserveCapacity(Self.size)
        for value in [generation, length, checksum] {
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
