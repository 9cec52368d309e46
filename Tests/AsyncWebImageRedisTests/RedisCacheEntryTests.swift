import Foundation
import Testing
@testable import AsyncWebImageRedis

@Suite("RedisCacheEntry")
struct RedisCacheEntryTests {
    @Test("round-trips data, extended data (none, empty, some) and the key")
    func roundTrip() throws {
        for extended in [nil, Data(), Data("etag".utf8)] {
            let entry = RedisCacheEntry(key: "https://é.example/a.jpg", data: Data([1, 2, 3, 4]), extendedData: extended)
            let bytes = try #require(entry.encoded())
            #expect(bytes.count == RedisCacheEntry.encodedCount(key: entry.key, data: entry.data, extendedData: extended))
            #expect(RedisCacheEntry(decoding: bytes) == entry)
        }
    }

    @Test("refuses every value whose header does not account for its bytes exactly")
    func refusesDamaged() throws {
        let bytes = try #require(RedisCacheEntry(key: "k", data: Data(repeating: 7, count: 100), extendedData: Data("e".utf8)).encoded())
        #expect(RedisCacheEntry(decoding: Array(bytes.dropLast())) == nil)
        #expect(RedisCacheEntry(decoding: bytes + [0]) == nil)
        #expect(RedisCacheEntry(decoding: []) == nil)
        var badMagic = bytes
        badMagic[0] = 0
        #expect(RedisCacheEntry(decoding: badMagic) == nil)
        for offset in 4..<28 {
            var lying = bytes
            lying[offset] ^= 0xFF
            #expect(RedisCacheEntry(decoding: lying) == nil)
        }
    }

    @Test("refuses a value whose key, extended data or data changed with its length intact, and a value of the first layout")
    func refusesCorruptedBytes() throws {
        let entry = RedisCacheEntry(key: "k", data: Data(repeating: 7, count: 100), extendedData: Data("e".utf8))
        let bytes = try #require(entry.encoded())
        // header 28 bytes, then the key (1), the extended data (1), the data (100)
        for offset in [28, 29, 30, 80, bytes.count - 1] {
            var flipped = bytes
            flipped[offset] ^= 0x01
            #expect(RedisCacheEntry(decoding: flipped) == nil, "byte \(offset)")
        }
        // "AWR1": the same parts without a checksum, as earlier versions wrote them
        var first = Array("AWR1".utf8) + [1, 0, 0, 0, 1, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0]
        first += Array("ke".utf8) + [UInt8](repeating: 7, count: 100)
        #expect(RedisCacheEntry(decoding: first) == nil)
        #expect(RedisCacheEntry(decoding: bytes) == entry)
    }
}
