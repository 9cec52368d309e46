import CSpng
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("SpngContext", .timeLimit(.minutes(1)))
struct SpngContextTests {
    @Test("turns libspng codes into typed errors with libspng's message")
    func errors() throws {
        let data = try PNGFixture.data("rgb8")
        try data.withUnsafeBytes { bytes in
            let decoder = try SpngContext(decoding: bytes)
            #expect(throws: Never.self) { try decoder.check(0) }
            #expect(throws: ImageError.undecodable(.png, "invalid chunk checksum (spng 18)")) {
                try decoder.check(Int32(SPNG_ECHUNK_CRC.rawValue))
            }
            // End-of-data codes say "truncated"
            guard case .undecodable(_, let message) = decoder.error(SPNG_IO_EOF.rawValue) else {
                Issue.record("not undecodable")
                return
            }
            #expect(message.hasPrefix("truncated"))
            #expect(try decoder.header().width == 37)
            #expect(try decoder.hasTransparencyChunk() == false)
            #expect(decoder.exifOrientation() == .up)
        }
        let encoder = try SpngContext(encoding: ())
        #expect(throws: ImageError.encodingFailed(.png, "invalid argument (spng 1)")) { try encoder.check(1) }
    }

    @Test("refuses empty data and reads tRNS and eXIf")
    func chunks() throws {
        #expect(throws: ImageError.undecodable(.png, "no data")) { try SpngContext(decoding: UnsafeRawBufferPointer(start: nil, count: 0)) }
        try PNGFixture.data("palette4-trns").withUnsafeBytes { bytes throws in
            #expect(try SpngContext(decoding: bytes).hasTransparencyChunk())
        }
        try PNGFixture.data("exif-orientation6").withUnsafeBytes { bytes throws in
            #expect(try SpngContext(decoding: bytes).exifOrientation() == .right)
        }
    }
}
