import Testing
@testable import AsyncWebImage

@Suite("DiskEntryTrailer", .timeLimit(.minutes(1)))
struct DiskEntryTrailerTests {
    @Test("encodes to 24 bytes and parses back")
    func roundTrip() {
        let trailer = DiskEntryTrailer(generation: 0x0102_0304_0506_0708, length: 1 << 40 | 5)
        let bytes = trailer.bytes
        #expect(bytes.count == DiskEntryTrailer.size)
        #expect(Array(bytes[0..<8]) == Array("AWIC".utf8) + [1, 0, 0, 0])
        #expect(bytes.withUnsafeBytes { DiskEntryTrailer($0) } == trailer)
    }

    @Test("rejects a wrong magic, version or size")
    func rejects() {
        var bytes = DiskEntryTrailer(generation: 1, length: 2).bytes
        bytes[0] = 0
        #expect(bytes.withUnsafeBytes { DiskEntryTrailer($0) } == nil)
        bytes = DiskEntryTrailer(generation: 1, length: 2).bytes
        bytes[4] = 2
        #expect(bytes.withUnsafeBytes { DiskEntryTrailer($0) } == nil)
        #expect(Array(bytes.prefix(23)).withUnsafeBytes { DiskEntryTrailer($0) } == nil)
    }
}
