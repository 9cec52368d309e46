import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageBMP

/// BMPCoder on `Fixtures/make-jxl-tiff-bmp-svg-fixtures.sh`'s ImageMagick
/// bitmaps against ImageMagick's decode.
@Suite("BMPCoder: every variant, bad input", .timeLimit(.minutes(1)))
struct BMPCoderTests {
    let coder = BMPCoder()

    @Test("variants equal ImageMagick's decode", arguments: [
        ("rgb24", PixelFormat.rgb8), ("pal8", .rgb8), ("pal4", .rgb8), ("pal1", .rgb8), ("rle8", .rgb8),
        ("rgb565", .rgb8), ("rgba32", .rgba8), ("os2", .rgb8),
    ])
    func variants(name: String, format: PixelFormat) throws {
        let image = try coder.decode(try fixture("bmp", name + ".bmp"), options: .init())
        #expect(image.pixelFormat == format)
        #expect(image.format == .bmp)
        #expect(try PAMReference("bmp", name).maximumDifference(from: image) == 0)
    }

    @Test("a top-down bitmap (negative height) decodes to the same pixels")
    func topDown() throws {
        let image = try coder.decode(try fixture("bmp", "rgb24-topdown.bmp"), options: .init())
        #expect(try PAMReference("bmp", "rgb24").maximumDifference(from: image) == 0)
    }

    @Test("a thumbnail is the full decode resampled; the declared size from the header")
    func thumbnail() throws {
        let data = try fixture("bmp", "rgba32.bmp")
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 24, height: 16)))
        #expect(thumbnail.hasSamePixels(as: ImageResampler.resample(try coder.decode(data, options: .init()), to: thumbnail.size)))
        #expect(coder.declaredSize(of: data) == PixelSize(width: 48, height: 32))
    }

    @Test("cut, damaged and oversized bitmaps: typed errors before allocation")
    func badInput() throws {
        let data = try fixture("bmp", "rgb24.bmp")
        for cut in [2, 20, 60, data.count - 10] {
            #expect(throws: ImageError.self) { try coder.decode(data.prefix(cut), options: .init()) }
        }
        // A 30000×30000 header over a few bytes: the pixel limit first, then the data length
        var bomb = [UInt8](data.prefix(200))
        bomb.replaceSubrange(18..<26, with: [0x30, 0x75, 0, 0, 0x30, 0x75, 0, 0])
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 900_000_000)) {
            try coder.decode(Data(bomb), options: .init())
        }
        var options = ImageDecodingOptions()
        options.maxPixelCount = 1_000_000_000
        #expect(throws: ImageError.tooLarge(.decodedBytes, limit: Int64(options.maxDecodeMemoryBytes), actual: 3_600_000_000)) {
            try coder.decode(Data(bomb), options: options)
        }
        // Run-length data that runs wild ends without a trap
        var rle = [UInt8](try fixture("bmp", "rle8.bmp"))
        var state: UInt64 = 1
        for offset in stride(from: 1100, to: rle.count, by: 7) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            rle[offset] = UInt8(truncatingIfNeeded: state >> 33)
        }
        let image = try coder.decode(Data(rle), options: .init())
        #expect(image.size == PixelSize(width: 48, height: 32))
    }
}
