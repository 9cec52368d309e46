import Foundation
import Testing
@testable import AsyncWebImage

@Suite("PNGChunkScan", .timeLimit(.minutes(1)))
struct PNGChunkScanTests {
    @Test("counts image data and finds the end of a complete file")
    func completeFile() throws {
        // Given a complete 160×120 interlaced PNG with 512-byte IDATs
        let data = try PNGFixture.data("progressive-interlaced")
        let scan = try data.withUnsafeBytes { try PNGChunkScan($0) }
        // Then the header, all IDAT bytes and IEND are seen, and nothing needs sealing
        #expect(scan.size == PixelSize(width: 160, height: 120))
        #expect(scan.isInterlaced)
        #expect(scan.isComplete)
        #expect(scan.imageDataBytes == data.count - 8 - 25 - 12 - 12 * 20) // 20 IDAT chunks
        #expect(scan.partialImageChunk == nil)
    }

    @Test("re-seals a partly received IDAT chunk with its length and a valid CRC")
    func sealsPartialChunk() throws {
        // Given a file cut 100 bytes into its only IDAT
        let data = try PNGFixture.data("progressive-interlaced-one-idat")
        let cut = data.prefix(33 + 8 + 100)
        let (scan, sealed) = try cut.withUnsafeBytes { bytes in
            let scan = try PNGChunkScan(bytes)
            return (scan, scan.decodableBytes(bytes))
        }
        #expect(scan.imageDataBytes == 100)
        #expect(!scan.isComplete)
        // Then the copy ends with an IDAT of length 100 whose CRC checks out
        let bytes = try #require(sealed)
        #expect(bytes.count == 33 + 12 + 100)
        #expect(Array(bytes[33..<41]) == [0, 0, 0, 100] + Array("IDAT".utf8))
        let crc = bytes[141..<145].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(bytes[37..<141].withUnsafeBytes { CRC32.checksum($0) } == crc)
        #expect(Array(bytes[0..<33]) == Array(cut.prefix(33)))
        #expect(Array(bytes[37..<141]) == Array(cut.dropFirst(37)))
    }

    @Test("rejects data that is already not a PNG, accepts any prefix of one")
    func rejects() throws {
        for bad in [Array("<html>".utf8), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IDAT".utf8)] {
            #expect(throws: ImageError.self) { try bad.withUnsafeBytes { try PNGChunkScan($0) } }
        }
        // A chunk length over 2^31 - 1 after a valid IHDR
        var huge = [UInt8](try PNGFixture.data("rgb8").prefix(33))
        huge += [0xFF, 0xFF, 0xFF, 0xFF] + Array("IDAT".utf8)
        #expect(throws: ImageError.self) { try huge.withUnsafeBytes { try PNGChunkScan($0) } }
        let good = try PNGFixture.data("rgb8")
        for length in 0...good.count {
            _ = try good.prefix(length).withUnsafeBytes { try PNGChunkScan($0) }
        }
    }
}
