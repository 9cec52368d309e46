import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF

/// Hostile and broken GIF data: always a typed ``ImageError``, never a
/// trap, and size limits enforced before pixels are allocated.
@Suite("GIFCoder: bad input", .timeLimit(.minutes(1)))
struct GIFCoderBadInputTests {
    let coder = GIFCoder()

    /// A GIF89a with a `screen` logical screen, a 2-colour global table and
    /// one `frame`-sized image at (0, 0) whose LZW data is `lzw`.
    static func gif(screen: (Int, Int), frame: (Int, Int), lzw: [UInt8] = [0x02, 0x02, 0x44, 0x01, 0x00]) -> Data {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        var bytes = Array("GIF89a".utf8) + le16(screen.0) + le16(screen.1) + [0x80, 0, 0]
        bytes += [255, 0, 0, 0, 0, 255] // red, blue
        bytes += [0x2C] + le16(0) + le16(0) + le16(frame.0) + le16(frame.1) + [0]
        bytes += lzw + [0x3B]
        return Data(bytes)
    }

    func expectUndecodable(_ data: Data, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            _ = try coder.decode(data, options: .init())
        } throws: { error in
            guard case .undecodable(.gif, _)? = error as? ImageError else { return false }
            return true
        }
    }

    @Test("a hand-made 1×1 GIF decodes (the builder the other cases bend is valid)")
    func builderIsValid() throws {
        let image = try coder.decode(Self.gif(screen: (1, 1), frame: (1, 1)), options: .init())
        #expect(image.size == PixelSize(width: 1, height: 1))
        #expect(image.pixels == [255, 0, 0])
    }

    @Test("empty, one byte, a bare signature, random bytes after a GIF header")
    func garbage() {
        expectUndecodable(Data())
        expectUndecodable(Data([0x47]))
        expectUndecodable(Data("GIF89a".utf8))
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let noise = (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(throws: ImageError.self) { try coder.decode(Data("GIF89a".utf8) + Data(noise), options: .init()) }
        }
    }

    @Test("truncated at every 5th offset: an error, never a partial image", arguments: ["still", "interlaced", "transparent"])
    func truncated(name: String) throws {
        let data = try fixture("gif", name + ".gif")
        // The last 2 bytes are the empty sub-block ending the image data and
        // the trailer; a still decode stops at the end of the first image.
        for end in stride(from: 0, to: data.count - 2, by: 5) {
            expectUndecodable(data.prefix(end), "cut at \(end) of \(data.count)")
        }
    }

    @Test("a 65535×65535 screen around a 1×1 frame fails on the pixel limit before the canvas exists")
    func hugeScreenTinyFrame() {
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 65535 * 65535)) {
            try coder.decode(Self.gif(screen: (65535, 65535), frame: (1, 1)), options: .init())
        }
        // A thumbnail does not get around it
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 65535 * 65535)) {
            try coder.decode(Self.gif(screen: (65535, 65535), frame: (1, 1)),
                             options: .init(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
        }
    }

    @Test("a huge frame on a small screen fails on the limit before its LZW data is decoded")
    func hugeFrame() {
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 65535 * 65535)) {
            try coder.decode(Self.gif(screen: (1, 1), frame: (65535, 65535)), options: .init())
        }
        // Within the limit, the data runs out long before the pixels do: a typed error
        expectUndecodable(Self.gif(screen: (1, 1), frame: (5000, 5000)))
    }

    @Test("a zero-sized screen or frame, a frame without a colour table, lying sub-block sizes")
    func lyingHeaders() {
        #expect(throws: ImageError.self) { try coder.decode(Self.gif(screen: (0, 0), frame: (1, 1)), options: .init()) }
        expectUndecodable(Self.gif(screen: (1, 1), frame: (0, 1)))
        var noTable = [UInt8](Self.gif(screen: (1, 1), frame: (1, 1)))
        noTable[10] = 0 // no global table: the "colours" become the image descriptor's bytes
        expectUndecodable(Data(noTable))
        // A sub-block declaring 200 bytes where 2 follow
        expectUndecodable(Self.gif(screen: (1, 1), frame: (1, 1), lzw: [0x02, 200, 0x44, 0x01, 0x00]))
    }
}
