/// A bounds-checked reader of big-endian ISO-BMFF fields and boxes within
/// one range of a file, for ``HEIFItemTable``.
package struct HEIFBoxCursor {
    /// One box: its type and the range of its payload (after the header).
    package struct Box {
        /// The four-character type as a big-endian integer.
        package var type: UInt32
        /// The payload's range in the file.
        package var payload: Range<Int>
    }

    private let file: UnsafeRawBufferPointer
    private var position: Int
    private let end: Int

    /// A cursor over `range` of `file` (clamped to the file).
    package init(_ file: UnsafeRawBufferPointer, range: Range<Int>) {
        self.file = file
        position = min(max(0, range.lowerBound), file.count)
        end = min(max(position, range.upperBound), file.count)
    }

    /// The big-endian integer of a four-character code.
    package static func fourCC(_ code: StaticString) -> UInt32 {
        precondition(code.utf8CodeUnitCount == 4)
        let bytes = code.utf8Start
        return UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }

    /// A four-character code as text, for messages (`?` for a byte that is not printable ASCII).
    package static func name(_ code: UInt32) -> String {
        String((0..<4).map { shift -> Character in
            let byte = UInt8(truncatingIfNeeded: code >> (24 - 8 * UInt32(shift)))
            return (0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
        })
    }

    /// The next box, or `nil` at the end of the range; a box whose size
    /// runs past the range is an error (a size of 0 means "to the end").
    package mutating func nextBox() throws(ImageError) -> Box? {
        guard end - position >= 8 else { return nil }
        let start = position
        var size = Int(try readUInt32())
        let type = try readUInt32()
        if size == 1 {
            let large = try readUInt64()
            guard large <= UInt64(Int.max) else { throw .undecodable(.heic, "box size \(large)") }
            size = Int(large)
        } else if size == 0 {
            size = end - start
        }
        let header = position - start
        guard size >= header, size <= end - start else {
            throw .undecodable(.heic, "box size \(size) runs past its container")
        }
        position = start + size
        return Box(type: type, payload: (start + header)..<(start + size))
    }

    /// Skips `count` bytes.
    package mutating func skip(_ count: Int) throws(ImageError) {
        guard count >= 0, end - position >= count else { throw Self.cut }
        position += count
    }

    /// Reads one byte.
    package mutating func readUInt8() throws(ImageError) -> UInt8 {
        UInt8(try read(1))
    }

    /// Reads a big-endian 16-bit field.
    package mutating func readUInt16() throws(ImageError) -> UInt16 {
        UInt16(try read(2))
    }

    /// Reads a big-endian 24-bit field (a full box's flags).
    package mutating func readUInt24() throws(ImageError) -> UInt32 {
        UInt32(try read(3))
    }

    /// Reads a big-endian 32-bit field.
    package mutating func readUInt32() throws(ImageError) -> UInt32 {
        UInt32(try read(4))
    }

    /// Reads a big-endian 64-bit field.
    package mutating func readUInt64() throws(ImageError) -> UInt64 {
        try read(8)
    }

    /// Reads a field of `size` bytes (0, 4 or 8, as `iloc` declares them)
    /// as a non-negative `Int`.
    package mutating func readSized(_ size: Int) throws(ImageError) -> Int {
        switch size {
        case 0: return 0
        case 4: return Int(try readUInt32())
        case 8:
            let value = try readUInt64()
            guard value <= UInt64(Int.max) else { throw .undecodable(.heic, "iloc field \(value)") }
            return Int(value)
        default: throw .undecodable(.heic, "iloc field of \(size) bytes")
        }
    }

    private mutating func read(_ count: Int) throws(ImageError) -> UInt64 {
        guard end - position >= count else { throw Self.cut }
        var value: UInt64 = 0
        for i in 0..<count { value = value << 8 | UInt64(file[position + i]) }
        position += count
        return value
    }

    private static var cut: ImageError { .undecodable(.heic, "a box is cut short") }
}
