import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP
import AsyncWebImageAllFormats

/// Decoding the fixtures of `Fixtures/make-webp-gif-fixtures.sh` against
/// `dwebp`'s output (the same libwebp, so exactly), thumbnails against
/// `dwebp -scale`, metadata against `webpmux`.
@Suite("WebPCoder: decoding real files", .timeLimit(.minutes(1)))
struct WebPCoderTests {
    let coder = WebPCoder()

    @Test("full decodes equal dwebp's pixels exactly; RGB without alpha, RGBA with", arguments: [
        ("lossy", PixelFormat.rgb8), ("lossless", .rgb8), ("alpha-lossy", .rgba8), ("alpha-lossless", .rgba8),
    ])
    func fullDecode(name: String, format: PixelFormat) throws {
        // Given a WebP and libwebp's own decode of it
        let data = try fixture("webp", name + ".webp")
        let reference = try PAMReference("webp", name)

        // When it is decoded
        let image = try coder.decode(data, options: .init())

        // Then the pixels are dwebp's, in the format the bitstream calls for
        #expect(image.pixelFormat == format)
        #expect(image.format == .webp)
        #expect(image.orientation == .up)
        #expect(reference.maximumDifference(from: image) == 0)
    }

    @Test("a lossless file holds the source's pixels, transparent ones included")
    func losslessIsTheSource() throws {
        let image = try coder.decode(try fixture("webp", "alpha-lossless.webp"), options: .init())
        let source = try PAMReference("webp", "source-rgba")
        #expect(PAMReference.rgba(image) == source.rgba)
    }

    @Test("with .area, thumbnails are libwebp's scaled decode, as dwebp -scale makes it", arguments: [
        ("lossy", 30, 23, true), ("alpha-lossless", 20, 15, false), ("large-lossy", 64, 64, true),
    ])
    func thumbnail(name: String, width: Int, height: Int, preserveAspectRatio: Bool) throws {
        // Given a thumbnail size (fitting inside 64×64 keeps 256×192 at 64×48)
        // and the .area speed option, which lets libwebp scale all the way
        var options = ImageDecodingOptions(
            thumbnailPixelSize: PixelSize(width: width, height: height), preserveAspectRatio: preserveAspectRatio
        )
        options.thumbnailFilter = .area
        let data = try fixture("webp", name + ".webp")

        // When decoded at that size
        let image = try coder.decode(data, options: options)

        // Then it matches dwebp's scaled decode exactly
        let expected = name == "large-lossy" ? "large-lossy-64x48" : "\(name)-\(width)x\(height)"
        let reference = try PAMReference("webp", expected)
        #expect(image.size == PixelSize(width: reference.width, height: reference.height))
        #expect(reference.maximumDifference(from: image) == 0)
    }

    @Test("scale-down shrinks to the byte limit while decoding; a thumbnail never enlarges")
    func scaleDownAndNoEnlarging() throws {
        let data = try fixture("webp", "large-lossy.webp")
        // 256×192×4 = 196,608 bytes; a 50,000-byte limit halves each side (and a bit)
        let scaled = try coder.decode(data, options: .init(scaleDownLargeImages: true, scaleDownLimitBytes: 50_000))
        #expect(scaled.width * scaled.height * 4 <= 50_000)
        #expect(scaled.width >= 100 && abs(Double(scaled.width) / Double(scaled.height) - 4.0 / 3.0) < 0.02)
        let big = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(big.size == PixelSize(width: 256, height: 192))
    }

    @Test("the EXIF chunk gives the orientation; applying it turns the pixels")
    func orientation() throws {
        // Given the lossy fixture with an EXIF chunk saying 6 (rotate 90° clockwise)
        let data = try fixture("webp", "orientation-6.webp")
        let plain = try coder.decode(try fixture("webp", "lossy.webp"), options: .init())

        // When decoded as stored and with the orientation applied
        let stored = try coder.decode(data, options: .init())
        let upright = try coder.decode(data, options: .init(applyOrientation: true))

        // Then the stored pixels are the plain file's, reported as .right; applied, they are rotated
        #expect(stored.orientation == .right)
        #expect(stored.hasSamePixels(as: plain))
        #expect(upright.orientation == .up)
        #expect(upright.size == PixelSize(width: 47, height: 61))
        #expect(upright.hasSamePixels(as: plain.with(orientation: .right).applyingOrientation()))
        // And a thumbnail fits the displayed (rotated) size: 30 wide is the stored height
        let thumb = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 30, height: 100)))
        #expect(thumb.orientedSize.width == 30)
    }

    @Test("iccProfile(in:) returns the ICCP chunk as webpmux extracts it; nil without one")
    func iccProfile() throws {
        let profile = WebPCoder.iccProfile(in: try fixture("webp", "icc-a98.webp"))
        #expect(profile == (try fixture("webp", "icc-a98.icc")))
        #expect(WebPCoder.iccProfile(in: try fixture("webp", "lossy.webp")) == nil)
        #expect(WebPCoder.iccProfile(in: Data("RIFF".utf8)) == nil)
        // Kept, the profile leaves the coded pixels as they are and travels with the image
        let kept = try coder.decode(try fixture("webp", "icc-a98.webp"), options: .init(keepsColorProfile: true))
        #expect(kept.hasSamePixels(as: try coder.decode(try fixture("webp", "lossy.webp"), options: .init())))
        #expect(kept.iccProfile == profile && kept.colorConversion == .kept)
        // By default it is converted to sRGB (Adobe RGB's wider gamut: the pixels change)
        let converted = try coder.decode(try fixture("webp", "icc-a98.webp"), options: .init())
        #expect(converted.colorConversion == .converted)
        #expect(!converted.hasSamePixels(as: kept))
    }

    @Test("the built-in registry decodes WebP by its bytes")
    func registry() throws {
        let data = try fixture("webp", "lossy.webp")
        #expect(ImageCoderRegistry.allFormats.decoder(for: data) is WebPCoder)
        let image = try ImageCoderRegistry.allFormats.decode(data)
        #expect(try PAMReference("webp", "lossy").maximumDifference(from: image) == 0)
    }
}
