import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF

/// GIFs giflib refuses (`Fixtures/make-conformance-fixtures.sh`): no colour
/// table anywhere, and an LZW minimum code size of 11.
@Suite("GIFCoder: files without a colour table, wide LZW codes", .timeLimit(.minutes(1)))
struct GIFMissingTablesTests {
    @Test("no colour table: index n as grey n, as Pillow reads it", arguments: [
        "gif-no-color-table", "gif-no-color-table-1bit",
    ])
    func noColorTable(name: String) throws {
        let data = try fixture("conformance", name + ".gif")
        let image = try GIFCoder().decode(data, options: .init())
        #expect(try PAMReference("conformance", name).maximumDifference(from: image) == 0)
        // And a thumbnail decodes too
        let thumbnail = try GIFCoder().decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 8, height: 4)))
        #expect(thumbnail.size == PixelSize(width: 8, height: 4))
    }

    @Test("no colour table with .refuse: a typed error")
    func noColorTableRefused() throws {
        let data = try fixture("conformance", "gif-no-color-table.gif")
        #expect(throws: ImageError.undecodable(.gif, "a frame without a colour table")) {
            try GIFCoder(missingColorTable: .refuse).decode(data, options: .init())
        }
    }

    @Test("LZW minimum code size 11 (giflib stops at 8): ImageMagick's pixels")
    func wideCodes() throws {
        let data = try fixture("conformance", "gif-lzw-code-size-11.gif")
        let image = try GIFCoder().decode(data, options: .init())
        #expect(try PAMReference("conformance", "gif-lzw-code-size-11").maximumDifference(from: image) == 0)
    }

    @Test("wide codes: damaged or cut data ends the frame without a trap", arguments: [0, 1, 3, 7])
    func wideCodesDamaged(seed: Int) throws {
        var bytes = [UInt8](try fixture("conformance", "gif-lzw-code-size-11.gif"))
        let start = bytes.count - 200
        var state = UInt64(seed + 1)
        for offset in stride(from: start, to: bytes.count - 2, by: 5) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes[offset] = UInt8(truncatingIfNeeded: state >> 33)
        }
        do {
            let image = try GIFCoder().decode(Data(bytes), options: .init())
            #expect(image.size == PixelSize(width: 16, height: 8))
        } catch is ImageError {}
        #expect(throws: ImageError.self) { try GIFCoder().decode(Data(bytes.prefix(bytes.count / 2)), options: .init()) }
    }

    @Test("the wide-code decoder: a clear-and-literal stream and a KwKwK run decode to their indices")
    func wideCodeDecoder() {
        // 12-bit codes: clear (2048), 5, 5 → entry 2050 = "5 5"; then 2050 itself, then end.
        func pack(_ codes: [Int]) -> [UInt8] {
            var bits = 0, count = 0, out: [UInt8] = []
            for code in codes {
                bits |= code << count
                count += 12
                while count >= 8 { out.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
            }
            if count > 0 { out.append(UInt8(bits & 0xFF)) }
            return out
        }
        #expect(GIFWideCodeDecoder.decode(pack([2048, 5, 5, 2050, 2049]), minimumCodeSize: 11, count: 4) == [5, 5, 5, 5])
        // KwKwK: 7 then 2050 (defined by this very code) is "7 7"
        #expect(GIFWideCodeDecoder.decode(pack([2048, 7, 2050, 2049]), minimumCodeSize: 11, count: 3) == [7, 7, 7])
        // An undefined code stops decoding; what came before stays
        #expect(GIFWideCodeDecoder.decode(pack([2048, 9, 3000]), minimumCodeSize: 11, count: 3) == [9, 0, 0])
    }
}
