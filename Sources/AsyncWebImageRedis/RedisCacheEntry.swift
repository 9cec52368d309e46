package import Foundation
import NIOCore
import AsyncWebImage

/// How an entry is laid out in one Redis value: a header, the entry's own
/// key, the extended data, then the data — so one `GET` reads it all and one
/// `SET` replaces it all, atomically.
///
/// ```
/// "AWR2" | key length u32 | extended length u32 (0xFFFFFFFF = none) | data length u64 | checksum u64 | key | extended | data
/// ```
/// (little-endian). The key is stored so that a value found under a key's
/// name is checked to be that key's: the name is a digest, and a value
/// copied, renamed or written by something else is never served as another
/// key's image. The checksum is XXH3-64 of the bytes after it (key,
/// extended data, data), as the disk tier's trailer has
/// (`DiskEntryTrailer`): a value whose bytes changed with its length intact
/// (a stray `SETRANGE`, a bad restore) is a miss, not an image with other
/// pixels — libjpeg decodes most damaged entropy data without a word.
/// Values of the first layout ("AWR1", no checksum) are not trusted either:
/// a miss, fetched and stored again.
package struct RedisCacheEntry: Sendable, Equatable {
    /// The cache key (not the Redis key name).
    package let key: String
    /// The encoded image.
    package let data: Data
    /// Small metadata kept with the entry (validators, freshness).
    package let extendedData: Data?

    private static let magic: [UInt8] = Array("AWR2".utf8)
    private static let headerCount = 4 + 4 + 4 + 8 + 8
    private static let noExtendedData: UInt32 = .max

    /// The value's bytes, or `nil` when the parts are too large to describe.
    package func encoded() -> [UInt8]? {
        let keyBytes = Array(key.utf8)
        guard keyBytes.count < Int(UInt32.max), (extendedData?.count ?? 0) < Int(Self.noExtendedData) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerCount + keyBytes.count + (extendedData?.count ?? 0) + data.count)
        bytes.append(contentsOf: Self.magic)
        Self.append(UInt32(keyBytes.count), to: &bytes)
        Self.append(extendedData.map { UInt32($0.count) } ?? Self.noExtendedData, to: &bytes)
        Self.append(UInt64(data.count), to: &bytes)
        Self.append(UInt64(0), to: &bytes)
        bytes.append(contentsOf: keyBytes)
        if let extendedData { bytes.append(contentsOf: extendedData) }
        bytes.append(contentsOf: data)
        let checksum = bytes.withUnsafeBytes { Self.checksum(ofBodyIn: $0) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(20..<28, with: $0) }
        return bytes
    }

    /// The size ``encoded()`` would have, without building it.
    static func encodedCount(key: String, data: Data, extendedData: Data?) -> Int {
        headerCount + key.utf8.count + (extendedData?.count ?? 0) + data.count
    }

    /// Parses a value; `nil` when it is not a whole entry of this layout.
    package init?(decoding bytes: [UInt8]) {
        guard let entry = bytes.withUnsafeBytes({ Self.decode($0) }) else { return nil }
        self = entry
    }

    /// Parses a value as it arrived (a slice of the connection's buffer),
    /// copying the data out of it once.
    init?(decoding buffer: ByteBuffer) {
        guard let entry = buffer.withUnsafeReadableBytes({ Self.decode($0) }) else { return nil }
        self = entry
    }

    /// The entry in `bytes`, or `nil` when they are not a whole entry.
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> RedisCacheEntry? {
        guard bytes.count >= headerCount, bytes.prefix(4).elementsEqual(magic) else { return nil }
        let keyCount = Int(read(UInt32.self, bytes, at: 4))
        let extendedRaw = read(UInt32.self, bytes, at: 8)
        let dataCount = read(UInt64.self, bytes, at: 12)
        let extendedCount = extendedRaw == noExtendedData ? 0 : Int(extendedRaw)
        // Every length is checked against what is there, so a lying header
        // can neither read past the value nor leave bytes unaccounted for.
        guard dataCount <= UInt64(bytes.count),
              headerCount + keyCount + extendedCount + Int(dataCount) == bytes.count,
              checksum(ofBodyIn: bytes) == read(UInt64.self, bytes, at: 20),
              let key = String(validating: UnsafeRawBufferPointer(rebasing: bytes[headerCount..<(headerCount + keyCount)]), as: UTF8.self)
        else { return nil }
        let extendedStart = headerCount + keyCount
        let dataStart = extendedStart + extendedCount
        return RedisCacheEntry(
            key: key,
            data: Data(UnsafeRawBufferPointer(rebasing: bytes[dataStart...])),
            extendedData: extendedRaw == noExtendedData ? nil : Data(UnsafeRawBufferPointer(rebasing: bytes[extendedStart..<dataStart]))
        )
    }

    package init(key: String, data: Data, extendedData: Data?) {
        self.key = key
        self.data = data
        self.extendedData = extendedData
    }

    /// XXH3-64 of what follows the header (key, extended data, data).
    private static func checksum(ofBodyIn value: UnsafeRawBufferPointer) -> UInt64 {
        DiskEntryTrailer.checksum(of: UnsafeRawBufferPointer(rebasing: value[headerCount...]))
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size {
            value |= T(bytes[offset + index]) << (8 * index)
        }
        return value
    }
}
