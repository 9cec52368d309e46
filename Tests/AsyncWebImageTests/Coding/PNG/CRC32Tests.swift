import Testing
@testable import AsyncWebImage

@Suite("CRC32", .timeLimit(.minutes(1)))
struct CRC32Tests {
    @Test("matches the standard check value and chains across calls")
    func checkValue() {
        // Given the standard check input "123456789"
        let bytes = Array("123456789".utf8)
        // Then the CRC is 0xCBF43926, in one call or two
        let whole = bytes.withUnsafeBytes { CRC32.checksum($0) }
        #expect(whole == 0xCBF4_3926)
        let first = bytes.prefix(4).withUnsafeBytes { CRC32.checksum($0) }
        let chained = bytes.dropFirst(4).withUnsafeBytes { CRC32.checksum($0, continuing: first) }
        #expect(chained == whole)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    @Test("agrees with the CRC stored in a real PNG chunk")
    func pngChunk() throws {
        // Given the IHDR chunk of a fixture: type + 13 data bytes, then its CRC
        let data = [UInt8](try PNGFixture.data("rgb8"))
        let stored = data[29..<33].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(data[12..<29].withUnsafeBytes { CRC32.checksum($0) } == stored)
    }
}
