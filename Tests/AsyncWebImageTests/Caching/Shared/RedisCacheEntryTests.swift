import Foundation
import Testing
@testable import AsyncWebImage

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
        for offset in 4..<20 {
            var lying = bytes
            lying[offset] ^= 0xFF
            #expect(RedisCacheEntry(decoding: lying) == nil)
        }
    }
}
