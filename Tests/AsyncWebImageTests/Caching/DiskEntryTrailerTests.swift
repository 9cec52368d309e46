import Testing
@testable import AsyncWebImage

@Suite("DiskEntryTrailer", .timeLimit(.minutes(1)))
struct DiskEntryTrailerTests {
    @Test("encodes to 32 bytes and parses back")
    func roundTrip() {
        let trailer = DiskEntryTrailer(generation: 0x0102_0304_0506_0708, length: 1 << 40 | 5, checksum: 0xA1B2_C3D4_E5F6_0718)
        let bytes = trailer.bytes
        #expect(bytes.count == DiskEntryTrailer.size)
        #expect(Array(bytes[0..<8]) == Array("AWIC".utf8) + [2, 0, 0, 0])
        #expect(Array(bytes[24..<32]) == [0x18, 0x07, 0xF6, 0xE5, 0xD4, 0xC3, 0xB2, 0xA1])
        #expect(bytes.withUnsafeBytes { DiskEntryTrailer($0) } == trailer)
    }

    @Test("rejects a wrong magic, version or size")
    func rejects() {
        var bytes = DiskEntryTrailer(generation: 1, length: 2, checksum: 3).bytes
        bytes[0] = 0
        #expect(bytes.withUnsafeBytes { DiskEntryTrailer($0) } == nil)
        bytes = DiskEntryTrailer(generation: 1, length: 2, checksum: 3).bytes
        bytes[4] = 1 // version 1: no checksum, not trusted
        #expect(bytes.withUnsafeBytes { DiskEntryTrailer($0) } == nil)
        #expect(Array(bytes.prefix(DiskEntryTrailer.size - 1)).withUnsafeBytes { DiskEntryTrailer($0) } == nil)
    }
}
