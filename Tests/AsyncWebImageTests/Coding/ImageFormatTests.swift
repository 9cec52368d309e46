import Foundation
import Testing
@testable import AsyncWebImage

@Suite("ImageFormat.detect", .timeLimit(.minutes(1)))
struct ImageFormatTests {
    @Test("recognises each format by its magic bytes", arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46, 0, 1], ImageFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .png),
        (Array("GIF89a\u{1}\0\u{1}\0\0\0".utf8), .gif),
        (Array("GIF87a\u{1}\0\u{1}\0\0\0".utf8), .gif),
        (Array("RIFF\u{10}\0\0\0WEBPVP8 ".utf8), .webp),
        ([0, 0, 0, 0x18] + Array("ftypheic\0\0\0\0mif1heic".utf8), .heic),
        ([0, 0, 0, 0x18] + Array("ftypmif1\0\0\0\0mif1heic".utf8), .heic),
        ([0, 0, 0, 0x1C] + Array("ftypavif\0\0\0\0avifmif1miaf".utf8), .avif),
        ([0, 0, 0, 0x1C] + Array("ftypmif1\0\0\0\0mif1avifmiaf".utf8), .avif),
        ([0, 0, 0, 0x18] + Array("ftypisom\0\0\0\0isomiso2".utf8), .unknown),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .tiff),
        ([0x42, 0x4D, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0], .bmp),
        ([0xFF, 0x0A, 0xFA, 0x1F], .jxl),
        ([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14], .jxl),
        // ICO: one 16×16 entry of 1,128 bytes at offset 22; CUR the same with type 2
        ([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0x68, 0x04, 0, 0, 22, 0, 0, 0], .ico),
        ([0, 0, 2, 0, 1, 0, 16, 16, 0, 0, 1, 0, 1, 0, 0x68, 0x04, 0, 0, 22, 0, 0, 0], .ico),
        (Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), .svg),
        ([0xEF, 0xBB, 0xBF] + Array("\n  <svg width=\"1\"".utf8), .svg),
        (Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=".utf8), .svg),
        (Array("<?xml version=\"1.0\"?><!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\"".utf8), .svg),
        (Array("<!-- drawn by hand --><svg>".utf8), .svg),
        (Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel>".utf8), .unknown),
        // Four zero bytes and a count, but the entry points inside the directory: not an icon
        ([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0x68, 0x04, 0, 0, 4, 0, 0, 0], .unknown),
    ] as [([UInt8], ImageFormat)])
    func detects(bytes: [UInt8], expected: ImageFormat) {
        #expect(ImageFormat.detect(Data(bytes)) == expected)
    }

    @Test("calls text, empty, short and random data unknown")
    func unknowns() {
        #expect(ImageFormat.detect(Data()) == .unknown)
        #expect(ImageFormat.detect(Data([0xFF])) == .unknown)
        #expect(ImageFormat.detect(Data([0xFF, 0xD8])) == .unknown)
        #expect(ImageFormat.detect(Data("<!DOCTYPE html><html><body>404</body></html>".utf8)) == .unknown)
        // "BM" followed by prose is not a bitmap.
        #expect(ImageFormat.detect(Data("BMW owners club: a long line of text here".utf8)) == .unknown)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] = 0x00 // no format starts with 0x00 except ftyp boxes, which need "ftyp" at 4
            bytes[4] = 0x00
            #expect(ImageFormat.detect(Data(bytes)) == .unknown)
        }
    }

    @Test("reads only the header of a large buffer")
    func largeBuffer() {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(Data(count: 5_000_000))
        #expect(ImageFormat.detect(data) == .png)
        #expect(ImageFormat.detect(data[0..<8]) == .png)
        #expect(ImageFormat.png.mimeType == "image/png")
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
        #expect(ImageFormat.jxl.mimeType == "image/jxl" && ImageFormat.ico.mimeType == "image/x-icon")
        #expect(ImageFormat.svg.mimeType == "image/svg+xml" && ImageFormat.svg.fileExtension == "svg")
    }
}
