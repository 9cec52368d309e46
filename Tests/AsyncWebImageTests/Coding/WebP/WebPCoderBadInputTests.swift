import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP

/// Hostile and broken WebP data: always a typed ``ImageError``, never a
/// trap, and size limits enforced from the header.
@Suite("WebPCoder: bad input", .timeLimit(.minutes(1)))
struct WebPCoderBadInputTests {
    let coder = WebPCoder()

    func expectUndecodable(_ data: Data, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            _ = try coder.decode(data, options: .init())
        } throws: { error in
            guard case .undecodable(.webp, _)? = error as? ImageError else { return false }
            return true
        }
    }

    @Test("empty, one byte, a bare RIFF header: undecodable; random bytes after a WebP header: a typed error")
    func garbage() throws {
        expectUndecodable(Data())
        expectUndecodable(Data([0x52]))
        expectUndecodable(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8))
        // Seeded, so a failure reproduces. Noise can spell a chunk header
        // that declares a huge canvas: `tooLarge` is as right as
        // `undecodable` there (CI once drew 227 megapixels).
        var random = SeededGenerator(seed: 0x5745_4250)
        for round in 0..<50 {
            let noise = (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let data = Data("RIFF".utf8) + Data([0xFF, 0, 0, 0]) + Data("WEBP".utf8) + Data(noise)
            #expect(throws: ImageError.self, "round \(round)") { _ = try coder.decode(data, options: .init()) }
            #expect(throws: ImageError.self, "round \(round)") {
                _ = try coder.decode(data + Data(repeating: 0, count: 64), options: .init())
            }
        }
    }

    @Test("truncated at every 7th offset: an error, never a partial image", arguments: ["lossy", "lossless", "alpha-lossy", "orientation-6"])
    func truncated(name: String) throws {
        let data = try fixture("webp", name + ".webp")
        // The metadata after the image (orientation-6's EXIF chunk) is not needed to decode.
        let imageEnd = name == "orientation-6" ? data.count - 34 : data.count
        for end in stride(from: 0, to: imageEnd, by: 7) {
            expectUndecodable(data.prefix(end), "cut at \(end) of \(data.count)")
        }
    }

    @Test("a RIFF size past the end of the data")
    func riffSizePastEnd() throws {
        var data = try fixture("webp", "lossy.webp")
        data.replaceSubrange(4..<8, with: [0x00, 0x00, 0x10, 0x00]) // 1 MiB
        expectUndecodable(data)
    }

    @Test("a chunk size that lies: larger than the file, or odd and short")
    func lyingChunkSizes() throws {
        let data = try fixture("webp", "lossy.webp")
        // Simple lossy file: 'VP8 ' chunk size at 16
        var longer = data
        longer.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0x0F])
        expectUndecodable(longer)
        var shorter = data
        shorter.replaceSubrange(16..<20, with: [0x09, 0x00, 0x00, 0x00])
        expectUndecodable(shorter)
    }

    @Test("a lossless header declaring 16383×16383 fails on the pixel limit before anything is allocated")
    func hugeLossless() throws {
        // VP8L: signature 0x2F at 20, then 14 bits width-1 and 14 bits height-1, little-endian
        var data = try fixture("webp", "lossless.webp")
        let bits: UInt32 = 16382 | 16382 << 14 | UInt32(data[24] & 0xF0) << 24
        data.replaceSubrange(21..<25, with: withUnsafeBytes(of: bits.littleEndian) { Array($0) })
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 16383 * 16383)) {
            try coder.decode(data, options: .init())
        }
        // A thumbnail does not get around the limit
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 16383 * 16383)) {
            try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        }
    }

    @Test("a lossy header declaring 16383×16383, and an extended header declaring 100000×100000")
    func hugeLossyAndExtended() throws {
        var lossy = try fixture("webp", "lossy.webp")
        // VP8 frame: tag (3), start code (3) from 20, then 14-bit width and height at 26 and 28
        lossy.replaceSubrange(26..<30, with: [0xFF, 0x3F, 0xFF, 0x3F])
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 16383 * 16383)) {
            try coder.decode(lossy, options: .init())
        }
        // VP8X canvas of 100000×100000 (24-bit width-1, height-1 at 24 and 27) around the real image
        let extended = try fixture("webp", "orientation-6.webp")
        var huge = extended
        let side = 100_000 - 1
        huge.replaceSubrange(24..<30, with: [UInt8(side & 0xFF), UInt8(side >> 8 & 0xFF), UInt8(side >> 16),
                                             UInt8(side & 0xFF), UInt8(side >> 8 & 0xFF), UInt8(side >> 16)])
        #expect(throws: ImageError.self) { try coder.decode(huge, options: .init()) }
        // The metadata reader survives it too (no ICCP chunk there)
        #expect(WebPCoder.iccProfile(in: huge) == nil)
    }

    @Test("a still decode of an animated WebP is its first frame on the canvas, as ImageMagick -coalesce draws it")
    func animated() throws {
        let image = try coder.decode(try fixture("animation", "disposal.webp"), options: .init())
        #expect(image.pixelFormat == .rgba8)
        #expect(try PAMReference("animation", "disposal-webp-0").maximumDifference(from: image) == 0)
        // A thumbnail of it is the first frame resampled: 40×30 fits 20×20 at 20×15
        let small = try coder.decode(try fixture("animation", "disposal.webp"), options: .init(thumbnailPixelSize: PixelSize(width: 20, height: 20)))
        #expect(small.size == PixelSize(width: 20, height: 15))
    }
}
