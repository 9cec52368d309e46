import Testing
@testable import AsyncWebImage

@Suite("Image.Orientation(tiff:)", .timeLimit(.minutes(1)))
struct ImageOrientationEXIFTests {
    /// A TIFF with IFD0 at 8 holding `entries` (tag, type, count, value) in the given byte order.
    private func tiff(bigEndian: Bool, entries: [(UInt16, UInt16, UInt32, UInt16)]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        var bytes: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, count, value) in entries {
            bytes += u16(tag) + u16(type) + u32(count) + u16(value) + [0, 0]
        }
        return bytes + u32(0)
    }

    @Test("reads every orientation in both byte orders, after other tags", arguments: 1...8)
    func reads(value: Int) {
        for bigEndian in [true, false] {
            let bytes = tiff(bigEndian: bigEndian, entries: [(0x010F, 2, 4, 0), (0x0112, 3, 1, UInt16(value))])
            #expect(bytes.withUnsafeBytes { Image.Orientation(tiff: $0) } == Image.Orientation(rawValue: UInt8(value)))
        }
    }

    @Test("returns nil for missing, invalid or truncated data, never trapping")
    func rejects() {
        let good = tiff(bigEndian: false, entries: [(0x0112, 3, 1, 6)])
        #expect(good.withUnsafeBytes { Image.Orientation(tiff: $0) } == .right)
        // Every truncation of a valid TIFF before the end of the orientation value
        for length in 0..<(good.count - 6) {
            #expect(good.prefix(length).withUnsafeBytes { Image.Orientation(tiff: UnsafeRawBufferPointer($0)) } == nil)
        }
        // Out-of-range value, wrong type, no tag, bad magic, IFD offset past the end
        #expect(tiff(bigEndian: true, entries: [(0x0112, 3, 1, 9)]).withUnsafeBytes { Image.Orientation(tiff: $0) } == nil)
        #expect(tiff(bigEndian: true, entries: [(0x0112, 4, 1, 6)]).withUnsafeBytes { Image.Orientation(tiff: $0) } == nil)
        #expect(tiff(bigEndian: true, entries: [(0x0100, 3, 1, 6)]).withUnsafeBytes { Image.Orientation(tiff: $0) } == nil)
        #expect(Array("HTTP/1.1".utf8).withUnsafeBytes { Image.Orientation(tiff: $0) } == nil)
        let farIFD: [UInt8] = [0x4D, 0x4D, 0, 42, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0]
        #expect(farIFD.withUnsafeBytes { Image.Orientation(tiff: $0) } == nil)
        // An entry count far larger than the data
        let manyEntries: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0xFF, 0xFF, 0x12, 0x01]
        #expect(manyEntries.withUnsafeBytes { Image.Orientation(tiff: $0) } == nil)
    }
}
