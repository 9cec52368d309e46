import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageTIFF

/// TIFFCoder on `Fixtures/make-jxl-tiff-bmp-svg-fixtures.sh`'s ImageMagick
/// and tiffcp files against ImageMagick's decode.
@Suite("TIFFCoder: pages, layouts, reduced-resolution thumbnails", .timeLimit(.minutes(1)))
struct TIFFCoderTests {
    let coder = TIFFCoder()

    // 16-bit associated alpha within 1 too; its faint pixels (alpha 1 of 255)
    // keep their colour only when alpha is divided out before narrowing to 8 bits.
    @Test("layouts equal ImageMagick's decode (16-bit grey and 16-bit associated alpha within 1)", arguments: [
        ("rgb8-strips", PixelFormat.rgb8, 0), ("rgba8-tiles", .rgba8, 0), ("rgb16", .rgb8, 0), ("gray16-tiles", .gray8, 1),
        ("palette", .rgb8, 0), ("bilevel", .gray8, 0), ("rgba8-associated", .rgba8, 0), ("cmyk", .rgb8, 0), ("jpeg", .rgb8, 0),
        ("rgba16-associated", .rgba8, 1), ("rgba16-associated-planar", .rgba8, 1), ("bigtiff", .rgb8, 0),
    ])
    func layouts(name: String, format: PixelFormat, tolerance: Int) throws {
        let image = try coder.decode(try fixture("tiff", name + ".tif"), options: .init())
        #expect(image.pixelFormat == format)
        #expect(image.format == .tiff)
        let difference = try #require(try PAMReference("tiff", name).maximumDifference(from: image))
        #expect(difference <= tolerance, "\(name): \(difference)")
    }

    @Test("a BigTIFF header (II+, 64-bit offsets) is recognised as TIFF")
    func bigTIFF() throws {
        let data = try fixture("tiff", "bigtiff.tif")
        #expect(Array(data.prefix(4)) == [0x49, 0x49, 0x2B, 0x00])
        #expect(ImageFormat.detect(data) == .tiff)
        #expect(coder.canDecode(data))
        #expect(ImageFormat.detect(Data([0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0, 0, 0, 0, 0])) == .tiff)
    }

    @Test("multi-page: the first page as a still, every page as a frame on the first page's canvas")
    func pages() throws {
        let data = try fixture("tiff", "multipage.tif")
        #expect(try PAMReference("tiff", "multipage-0").maximumDifference(from: try coder.decode(data, options: .init())) == 0)
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        #expect(decoder.info.frameCount == 3)
        #expect(try PAMReference("tiff", "multipage-0").maximumDifference(from: try #require(try decoder.decodeNextFrame())) == 0)
        #expect(try PAMReference("tiff", "multipage-1").maximumDifference(from: try #require(try decoder.decodeNextFrame())) == 0)
        let third = try #require(try decoder.decodeNextFrame())
        #expect(third.size == PixelSize(width: 48, height: 32))
        let small = try PAMReference("tiff", "multipage-2")
        #expect(third.pixel(x: small.width - 1, y: small.height - 1)?[3] == 255)
        #expect(third.pixel(x: 47, y: 31) == [0, 0, 0, 0])
        #expect(try decoder.decodeNextFrame() == nil)
        #expect(try coder.makeAnimatedFrameDecoder(try fixture("tiff", "rgb8-strips.tif"), options: .init()) == nil)
        var options = ImageDecodingOptions()
        options.maxAnimationPixelCount = 48 * 32 * 2
        #expect(throws: ImageError.tooLarge(.animationPixels, limit: 3072, actual: 4608)) {
            try coder.makeAnimatedFrameDecoder(data, options: options)
        }
    }

    @Test("a thumbnail reads the smallest reduced-resolution copy that covers it")
    func reducedResolution() throws {
        let data = try fixture("tiff", "pyramid.tif")
        // 64×48 is the third directory's size: read as it is, no resampling
        let exact = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 64, height: 48)))
        #expect(try PAMReference("tiff", "pyramid-2").maximumDifference(from: exact) == 0)
        // 40×30 is resampled from that copy, not from the 256×192 page
        let smaller = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 40, height: 30)))
        let reference = try PAMReference("tiff", "pyramid-2")
        let fromCopy = ImageResampler.resample(
            Image.make(width: 64, height: 48, pixelFormat: .rgba8) { $0.copyBytes(from: reference.rgba) }, to: smaller.size
        )
        #expect(PAMReference.rgba(smaller) == PAMReference.rgba(fromCopy))
        #expect(coder.declaredSize(of: data) == PixelSize(width: 256, height: 192))
    }

    @Test("the Orientation tag is reported, and applied on request")
    func orientation() throws {
        let data = try fixture("tiff", "orientation6.tif")
        let stored = try coder.decode(data, options: .init())
        #expect(stored.orientation == .right)
        #expect(try PAMReference("tiff", "rgb8-strips").maximumDifference(from: stored) == 0)
        let upright = try coder.decode(data, options: .init(applyOrientation: true))
        #expect(upright.size == PixelSize(width: 32, height: 48))
        #expect(upright.hasSamePixels(as: stored.applyingOrientation()))
    }

    @Test("a strip thumbnail never exceeds its target and matches the full decode resampled")
    func stripThumbnail() throws {
        let data = try fixture("tiff", "rgb8-strips.tif")
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 24, height: 16)))
        let full = ImageResampler.resample(try coder.decode(data, options: .init()), to: PixelSize(width: 24, height: 16))
        #expect(thumbnail.hasSamePixels(as: full))
    }

    @Test("truncated, corrupt and oversized files: typed errors before allocation")
    func badInput() throws {
        let data = try fixture("tiff", "rgb8-strips.tif")
        for cut in [4, 16, data.count / 3] {
            #expect(throws: ImageError.self) { try coder.decode(data.prefix(cut), options: .init()) }
        }
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100, actual: 1536)) {
            try coder.decode(data, options: .init(maxPixelCount: 100))
        }
        #expect(throws: ImageError.self) { try coder.decode(data, options: .init(maxDecodeMemoryBytes: 1000)) }
        // A 65535×65535 header in a tiny file: refused by the limit, nothing allocated
        let bomb = Self.minimalTIFF(width: 65535, height: 65535)
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 65535 * 65535)) {
            try coder.decode(bomb, options: .init())
        }
    }

    /// A little-endian TIFF of one 8-bit grey strip whose header declares `width`×`height`.
    static func minimalTIFF(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        let entries: [(UInt16, UInt16, UInt32, UInt32)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
            (273, 4, 1, 200), (277, 3, 1, 1), (278, 4, 1, height), (279, 4, 1, 16),
        ]
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        bytes += le16(UInt16(entries.count))
        for (tag, type, count, value) in entries { bytes += le16(tag) + le16(type) + le32(count) + le32(value) }
        bytes += le32(0)
        bytes += [UInt8](repeating: 0x80, count: 220 - bytes.count)
        return Data(bytes)
    }
}
