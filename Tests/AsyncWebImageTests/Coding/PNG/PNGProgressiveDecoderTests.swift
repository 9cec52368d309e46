import Foundation
import Testing
@testable import AsyncWebImage

@Suite("PNGProgressiveDecoder", .timeLimit(.minutes(2)))
struct PNGProgressiveDecoderTests {
    /// Feeds `data` in growing prefixes of `step` bytes and collects every preview.
    private func previews(of data: Data, step: Int, options: ImageDecodingOptions = .init()) throws -> [Image] {
        var decoder = PNGProgressiveDecoder(options: options)
        var result: [Image] = []
        var end = 0
        // Bounded: one call per step up to the whole file.
        while end < data.count {
            end = min(data.count, end + step)
            if let preview = try decoder.preview(for: data.prefix(end)) {
                result.append(preview)
            }
        }
        return result
    }

    @Test("an interlaced PNG fed in chunks gives a preview per new pass, each covering the frame", arguments: [
        "progressive-interlaced", "progressive-interlaced-one-idat",
    ])
    func interlacedPasses(name: String) throws {
        // Given a 160×120 Adam7 PNG (blue is never 0 in it) and its full decode
        let data = try PNGFixture.data(name)
        let full = try PNGCoder().decode(data, options: .init())
        // When it arrives 300 bytes at a time
        let previews = try previews(of: data, step: 300)
        // Then there are several previews, all full size, marked, and covering the whole frame
        #expect(previews.count >= 3, "\(previews.count) previews")
        for preview in previews {
            #expect(preview.isPreview)
            #expect(preview.size == full.size && preview.pixelFormat == full.pixelFormat)
            var uncovered = 0
            for y in 0..<preview.height {
                for x in 0..<preview.width where preview.pixel(x: x, y: y)?[2] == 0 { uncovered += 1 }
            }
            #expect(uncovered == 0)
        }
        // The first is still blocky, but exact on the pass-1 grid, which every preview has
        let first = try #require(previews.first)
        #expect(!first.hasSamePixels(as: full))
        for y in stride(from: 0, to: 120, by: 8) {
            for x in stride(from: 0, to: 160, by: 8) {
                #expect(first.pixel(x: x, y: y) == full.pixel(x: x, y: y))
                #expect(first.pixel(x: x + 1, y: y + 1) == first.pixel(x: x, y: y))
            }
        }
        // Previews improve: each is closer to the final image than the one before
        let distances = previews.map { preview in
            zip(PNGFixture.rgba(preview), PNGFixture.rgba(full)).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        }
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 > $1 }, "\(distances)")
        // And the last, with all seven passes, is the full decode
        let last = try #require(previews.last)
        #expect(last.hasSamePixels(as: full))
    }

    @Test("a plain PNG fed in chunks gives previews of the rows received, the rest zero")
    func plainRows() throws {
        // Given a 160×120 non-interlaced PNG and its full decode
        let data = try PNGFixture.data("progressive-plain")
        let full = try PNGCoder().decode(data, options: .init())
        // When it arrives 256 bytes at a time
        let previews = try previews(of: data, step: 256)
        #expect(previews.count >= 3)
        var lastRows = 0
        for preview in previews {
            // Then the received rows match the final image and the others are zero
            let rows = (0..<preview.height).first { preview.pixel(x: 0, y: $0) == [0, 0, 0] } ?? preview.height
            #expect(rows >= lastRows + 120 / 8 || rows == 120, "\(lastRows) → \(rows)")
            lastRows = rows
            for y in 0..<preview.height {
                for x in stride(from: 0, to: preview.width, by: 7) {
                    #expect(preview.pixel(x: x, y: y) == (y < rows ? full.pixel(x: x, y: y) : [0, 0, 0]))
                }
            }
        }
        #expect(previews.last?.hasSamePixels(as: full) == true)
    }

    @Test("previews take the thumbnail size and orientation options")
    func thumbnailPreviews() throws {
        // Given a thumbnail box of 40×40 for a 160×120 interlaced PNG
        let data = try PNGFixture.data("progressive-interlaced")
        let previews = try previews(of: data, step: 1000, options: .init(thumbnailPixelSize: PixelSize(width: 40, height: 40)))
        // Then every preview is 40×30
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.size == PixelSize(width: 40, height: 30) && $0.isPreview })
        // And with applyOrientation an eXIf orientation 6 image previews upright
        let exif = try PNGFixture.data("exif-orientation6")
        let upright = try self.previews(of: exif, step: 64, options: .init(applyOrientation: true))
        #expect(!upright.isEmpty)
        #expect(upright.allSatisfy { $0.size == PixelSize(width: 23, height: 37) && $0.orientation == .up }, "\(upright)")
    }

    @Test("fed one byte at a time, a small interlaced PNG never fails and ends at the full decode", arguments: [
        "gray1-interlaced", "palette4-trns-interlaced", "rgba16-interlaced", "rgba16",
    ])
    func byteByByte(name: String) throws {
        let data = try PNGFixture.data(name)
        let full = try PNGCoder().decode(data, options: .init())
        let previews = try previews(of: data, step: 1)
        #expect(!previews.isEmpty)
        #expect(previews.last?.hasSamePixels(as: full) == true)
    }

    @Test("decode attempts grow geometrically: fed byte by byte, previews cost a few full decodes")
    func attemptBound() throws {
        // Given a 9.5 KB PNG fed one byte at a time (9 500 calls)
        let data = try PNGFixture.data("progressive-plain")
        var decoder = PNGProgressiveDecoder()
        for end in 1...data.count { _ = try decoder.preview(for: data.prefix(end)) }
        // Then only O(log n) calls decoded anything (log₁.₅ 9 297 ≈ 22.5), and
        // all of them together inflated at most 3 + 1 times the image data
        let imageBytes = 9570 - 33 - 12 - 19 * 12 // file − header − IEND − 19 IDAT chunk frames
        #expect(decoder.decodeAttempts <= 25, "\(decoder.decodeAttempts) attempts")
        #expect(decoder.decodedImageBytes <= imageBytes * 4, "\(decoder.decodedImageBytes) bytes")
    }

    @Test("nothing is decoded again until more image data arrives")
    func noRepeat() throws {
        var decoder = PNGProgressiveDecoder()
        let data = try PNGFixture.data("rgb8")
        // Before any IDAT: nil; the whole file: a preview; the same again: nil
        #expect(try decoder.preview(for: data.prefix(40)) == nil)
        #expect(try decoder.preview(for: data) != nil)
        #expect(try decoder.preview(for: data) == nil)
    }

    // MARK: - Bad input

    @Test("data that is not a PNG fails as soon as it can be seen")
    func notPNG() throws {
        for bytes in [Data("<!DOCTYPE html><html><body>Not Found</body></html>".utf8), Data([0x89, 0x50, 0x00]), Data([0xFF, 0xD8, 0xFF])] {
            var decoder = PNGProgressiveDecoder()
            #expect(throws: ImageError.self) { try decoder.preview(for: bytes) }
        }
        // Empty and a correct first byte are not wrong yet
        var decoder = PNGProgressiveDecoder()
        #expect(try decoder.preview(for: Data()) == nil)
        #expect(try decoder.preview(for: Data([0x89])) == nil)
    }

    @Test("a 100000×100000 header fails with tooLarge as soon as the header has arrived")
    func hugeHeader() throws {
        let data = try PNGFixture.data("huge-header")
        var decoder = PNGProgressiveDecoder()
        #expect(try decoder.preview(for: data.prefix(20)) == nil)
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 10_000_000_000)) {
            try decoder.preview(for: data.prefix(33))
        }
    }

    @Test("a bad CRC is reported once its chunk has arrived; a truncated file only yields previews")
    func badCRCAndTruncation() throws {
        // Given a file whose first IDAT has a wrong CRC, received whole
        var decoder = PNGProgressiveDecoder()
        #expect(throws: ImageError.self) { try decoder.preview(for: PNGFixture.data("bad-crc")) }
        // Given a good file cut at many offsets: never an error
        let data = try PNGFixture.data("progressive-interlaced")
        for cut in stride(from: 0, to: data.count, by: 97) {
            var fresh = PNGProgressiveDecoder()
            _ = try fresh.preview(for: data.prefix(cut))
        }
    }

    @Test("corrupted downloads give previews or a typed error, never a crash")
    func corruptedDownloads() throws {
        let data = try PNGFixture.data("progressive-interlaced")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            // Given a download with a few random bytes flipped, arriving 400 bytes at a time
            var bytes = [UInt8](data)
            for _ in 0..<2 {
                bytes[Int.random(in: 8..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            }
            var decoder = PNGProgressiveDecoder(options: .init(maxPixelCount: 1_000_000))
            var end = 0
            while end < bytes.count {
                end = min(bytes.count, end + 400)
                do {
                    // Then every preview has the declared size, or decoding stops with an ImageError
                    if let preview = try decoder.preview(for: Data(bytes.prefix(end))) {
                        #expect(preview.width * preview.height <= 1_000_000 && preview.isPreview)
                    }
                } catch is ImageError {
                    break
                }
            }
        }
    }

    @Test("deflate bombs give an error or a tiny preview")
    func bombs() throws {
        var decoder = PNGProgressiveDecoder()
        #expect(throws: ImageError.self) { try decoder.preview(for: PNGFixture.data("bomb-ztxt")) }
        var idat = PNGProgressiveDecoder()
        let preview = try idat.preview(for: PNGFixture.data("bomb-idat"))
        #expect(preview?.size == PixelSize(width: 1, height: 1))
    }
}
