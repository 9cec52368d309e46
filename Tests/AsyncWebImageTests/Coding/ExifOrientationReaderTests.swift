import Testing
@testable import AsyncWebImage

@Suite("ExifOrientationReader", .timeLimit(.minutes(1)))
struct ExifOrientationReaderTests {
    /// The orientation in an APP1 payload given as bytes.
    static func read(_ payload: [UInt8]) -> Image.Orientation? {
        payload.withUnsafeBytes { ExifOrientationReader.orientation(inAPP1: $0) }
    }

    /// An Exif payload with IFD0 holding `entries` (tag, type, value), in either byte order.
    static func payload(bigEndian: Bool, entries: [(UInt16, UInt16, UInt32)], declaredCount: UInt16? = nil, ifdOffset: UInt32 = 8) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        var tiff: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(ifdOffset)
        tiff += u16(declaredCount ?? UInt16(entries.count))
        for (tag, type, value) in entries {
            // SHORT values sit left-justified in the 4-byte field.
            tiff += u16(tag) + u16(type) + u32(1) + (type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value))
        }
        tiff += u32(0)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    @Test("reads the orientation in both byte orders, among other tags", arguments: [false, true])
    func byteOrders(bigEndian: Bool) {
        for value in 1...8 {
            // Given IFD0 with an image width tag, then the orientation, then a date offset
            let entries: [(UInt16, UInt16, UInt32)] = [(0x0100, 4, 4000), (0x0112, 3, UInt32(value)), (0x0132, 2, 0x1234)]
            #expect(Self.read(Self.payload(bigEndian: bigEndian, entries: entries))?.rawValue == UInt8(value))
        }
        // The standard type is SHORT; anything else is ignored
        #expect(Self.read(Self.payload(bigEndian: bigEndian, entries: [(0x0112, 4, 6)])) == nil)
    }

    @Test("the segment it writes reads back")
    func writeThenRead() {
        for orientation in Image.Orientation.allCases {
            let segment = ExifOrientationReader.app1Segment(for: orientation)
            #expect(segment[0] == 0xFF && segment[1] == 0xE1)
            #expect(Int(segment[2]) << 8 | Int(segment[3]) == segment.count - 2)
            #expect(Self.read(Array(segment[4...])) == orientation)
        }
    }

    @Test("hostile or malformed segments yield nil, never a trap")
    func hostile() {
        let valid = Self.payload(bigEndian: false, entries: [(0x0112, 3, 3)])
        // Out-of-range values, wrong types, missing tag
        #expect(Self.read(Self.payload(bigEndian: false, entries: [(0x0112, 3, 0)])) == nil)
        #expect(Self.read(Self.payload(bigEndian: true, entries: [(0x0112, 3, 9)])) == nil)
        #expect(Self.read(Self.payload(bigEndian: true, entries: [(0x0112, 2, 6)])) == nil)
        #expect(Self.read(Self.payload(bigEndian: true, entries: [(0x0100, 3, 6)])) == nil)
        // Not Exif (XMP also lives in APP1), bad byte order mark, bad magic number
        #expect(Self.read(Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)) == nil)
        var badOrder = valid
        badOrder[6] = 0x4D
        #expect(Self.read(badOrder) == nil)
        var badMagic = valid
        badMagic[8] = 43
        #expect(Self.read(badMagic) == nil)
        // An entry count far beyond the segment, IFD offsets past the end or absurd
        #expect(Self.read(Self.payload(bigEndian: true, entries: [(0x0100, 3, 1)], declaredCount: 0xFFFF)) == nil)
        #expect(Self.read(Self.payload(bigEndian: false, entries: [(0x0112, 3, 6)], declaredCount: 0xFFFF)) == .right)
        #expect(Self.read(Self.payload(bigEndian: true, entries: [(0x0112, 3, 6)], ifdOffset: 4000)) == nil)
        #expect(Self.read(Self.payload(bigEndian: false, entries: [(0x0112, 3, 6)], ifdOffset: 0xFFFF_FFFF)) == nil)
        // Every truncation of a valid segment
        for length in 0..<valid.count {
            let result = Self.read(Array(valid[..<length]))
            #expect(result == nil || result == .down)
        }
        #expect(Self.read(valid) == .down)
        // Random bytes after a valid header
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let noise = Array(valid[..<14]) + (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let found = Self.read(noise) { #expect((1...8).contains(found.rawValue)) }
        }
    }
}
