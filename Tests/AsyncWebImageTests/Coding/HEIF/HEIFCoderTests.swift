import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageHEIF
@testable import AsyncWebImageAVIF
import AsyncWebImageAllFormats

/// The HEIC fixtures made by `Fixtures/make-avif-heif-fixtures.sh` and their
/// reference pixels (PNGs written by `heif-convert`).
enum HEIFFixture {
    static func data(_ name: String) throws -> Data { try fixture("heif", name) }

    /// A reference PNG, decoded by the package's PNG coder (16-bit PNGs
    /// rounded to 8 bits, `round(v × 255 / 65535)`).
    static func reference(_ name: String) throws -> Image {
        try PNGCoder().decode(data(name), options: .init())
    }
}

@Suite("HEIFCoder", .timeLimit(.minutes(2)))
struct HEIFCoderTests {
    let coder = HEIFCoder()

    @Test("decodes exactly as heif-convert (same libheif): 8-bit, alpha, a file with an embedded thumbnail", arguments: [
        ("rgb8", PixelFormat.rgb8), ("rgba8", .rgba8), ("thumbnail", .rgb8),
    ])
    func decodesLikeHeifConvert(name: String, pixelFormat: PixelFormat) throws {
        let reference = try HEIFFixture.reference("\(name).ref.png")
        let image = try coder.decode(HEIFFixture.data("\(name).heic"), options: .init())
        #expect(image.pixelFormat == pixelFormat)
        #expect(image.format == .heic)
        #expect(image.orientation == .up)
        // The primary image, never the 16×12 embedded thumbnail.
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(image.hasSamePixels(as: reference), "max difference \(image.maximumChannelDifference(from: reference) ?? -1)")
    }

    @Test("alpha is straight: the ramp's transparent end keeps its colour")
    func alphaIsStraight() throws {
        let image = try coder.decode(HEIFFixture.data("rgba8.heic"), options: .init())
        let left = try #require(image.pixel(x: 0, y: 30)), right = try #require(image.pixel(x: 63, y: 30))
        #expect(left[3] < 15)
        #expect(right[3] > 240)
        #expect(Int(left[0]) + Int(left[1]) + Int(left[2]) > 100, "\(left)")
    }

    @Test("premultiplied alpha comes out straight: the same coded pixels as rgba8.heic, divided by alpha")
    func premultiplied() throws {
        // heif-enc flags the same input as premultiplied; x265 codes it identically.
        let flagged = try coder.decode(HEIFFixture.data("premultiplied.heic"), options: .init())
        let straight = try coder.decode(HEIFFixture.data("rgba8.heic"), options: .init())
        #expect(flagged.pixelFormat == .rgba8)
        var expected = straight.pixels
        expected.withUnsafeMutableBufferPointer { buffer in
            HEIFCoder.unpremultiply(buffer.baseAddress!, pixels: straight.width * straight.height)
        }
        #expect(flagged.pixels == expected)
        #expect(flagged.pixels != straight.pixels)
        // Half transparent: colour doubled (clamped), alpha kept.
        let pixel = try #require(flagged.pixel(x: 32, y: 40)), coded = try #require(straight.pixel(x: 32, y: 40))
        #expect(pixel[3] == coded[3])
        #expect(Int(pixel[2]) == min(255, (Int(coded[2]) * 255 + Int(coded[3]) / 2) / Int(coded[3])))
    }

    @Test("10-bit: reduced to 8 with rounding, within 1 of heif-convert's 16-bit PNG rounded to 8")
    func tenBit() throws {
        let image = try coder.decode(HEIFFixture.data("rgb10.heic"), options: .init())
        let reference = try HEIFFixture.reference("rgb10.ref.png")
        let difference = try #require(image.maximumChannelDifference(from: reference))
        #expect(difference <= 1, "max difference \(difference)")
    }

    @Test("rounding of deep samples: v × 255 / (2ⁿ − 1) to the nearest, ends exact", arguments: [10, 12])
    func reduction(bits: Int) {
        let maximum = (1 << bits) - 1
        let values: [UInt16] = Array(0...UInt16(maximum))
        var output = [UInt8](repeating: 0, count: values.count)
        values.map(\.littleEndian).withUnsafeBytes { source in
            output.withUnsafeMutableBufferPointer { HEIFCoder.reduceTo8Bits(source.baseAddress!, into: $0.baseAddress!, count: values.count, bits: bits) }
        }
        for (value, reduced) in zip(values, output) {
            let ideal = (Double(value) * 255 / Double(maximum)).rounded()
            #expect(Double(reduced) == ideal, "\(value) → \(reduced), ideal \(ideal)")
        }
    }

    @Test("irot/imir are applied by libheif: pixels upright, orientation .up, exactly as heif-convert (AVIF fixtures with irot/imir, read by libheif)", arguments: [
        "irot1-imir0", "irot3", "imir1",
    ])
    func transformsApplied(name: String) throws {
        // HEIFCoder does not claim AVIF (AVIFCoder does), but libheif reads
        // it: these are the repository's only files with irot/imir.
        let data = try fixture("avif", "\(name).avif")
        let image = try data.withUnsafeBytes { bytes throws(ImageError) in
            try HEIFCoder.decodeImage(bytes, options: .init())
        }
        let reference = try PNGCoder().decode(fixture("avif", "\(name).oriented.png"), options: .init())
        #expect(image.orientation == .up)
        #expect(image.hasSamePixels(as: reference), "max difference \(image.maximumChannelDifference(from: reference) ?? -1)")
        // And the same display as AVIFCoder's, which reports the orientation instead.
        let avif = try AVIFCoder().decode(data, options: .init())
        #expect(image.size == avif.orientedSize)
    }

    @Test("thumbnails are the full decode resampled, aspect kept or stretched; scale-down")
    func thumbnails() throws {
        let data = try HEIFFixture.data("thumbnail.heic")
        let full = try coder.decode(data, options: .init())
        let fitted = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 32, height: 32)))
        #expect(fitted.size == PixelSize(width: 32, height: 24))
        #expect(fitted.hasSamePixels(as: ImageResampler.resample(full, to: PixelSize(width: 32, height: 24))))
        let stretched = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 30), preserveAspectRatio: false))
        #expect(stretched.size == PixelSize(width: 10, height: 30))
        let scaled = try coder.decode(data, options: .init(scaleDownLargeImages: true, scaleDownLimitBytes: 64 * 48))
        #expect(scaled.size == PixelSize(width: 32, height: 24))
    }

    @Test("the pixel limit is checked before decoding")
    func pixelLimit() throws {
        let data = try HEIFFixture.data("rgb8.heic")
        #expect(throws: ImageError.tooLarge(.pixels, limit: 3071, actual: 3072)) {
            try coder.decode(data, options: .init(maxPixelCount: 3071))
        }
    }

    @Test("a huge ispe fails fast with ImageError, whatever our limit")
    func hugeSpatialExtents() throws {
        let huge = try ISOBMFFFixtureEditing.withSpatialExtents(width: 100_000, height: 100_000, in: HEIFFixture.data("rgb8.heic"))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            ISOBMFFFixtureEditing.expectImageError(coder, huge, "default limit")
            ISOBMFFFixtureEditing.expectImageError(coder, huge, "no limit", options: .init(maxPixelCount: .max))
        }
        #expect(elapsed < .seconds(1))
        let wide = try ISOBMFFFixtureEditing.withSpatialExtents(width: 30_000, height: 30_000, in: HEIFFixture.data("rgb8.heic"))
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 900_000_000)) {
            try coder.decode(wide, options: .init())
        }
    }

    @Test("empty, one byte, random bytes, truncated files and lying box sizes fail with ImageError")
    func badInput() throws {
        for (label, data) in ISOBMFFFixtureEditing.junk(brand: "heic") {
            ISOBMFFFixtureEditing.expectImageError(coder, data, label)
        }
        for name in ["rgb8.heic", "rgba8.heic"] {
            for (label, data) in try ISOBMFFFixtureEditing.truncations(HEIFFixture.data(name)) {
                ISOBMFFFixtureEditing.expectImageError(coder, data, "\(name) \(label)")
            }
        }
        let original = try HEIFFixture.data("rgba8.heic")
        let expected = try coder.decode(original, options: .init())
        for (label, data) in ISOBMFFFixtureEditing.lyingBoxSizes(original) {
            if label.hasPrefix("mdat") {
                // Never read as a box: items are found by their iloc offsets.
                #expect(try coder.decode(data, options: .init()) == expected, "\(label)")
            } else {
                ISOBMFFFixtureEditing.expectImageError(coder, data, label)
            }
        }
    }

    @Test("iccProfile returns the colr profile's bytes, nil without one or for junk")
    func iccProfile() throws {
        let profile = try fixture("avif", "profile.icc")
        #expect(HEIFCoder.iccProfile(in: try HEIFFixture.data("icc.heic")) == profile)
        #expect(HEIFCoder.iccProfile(in: try HEIFFixture.data("rgb8.heic")) == nil)
        #expect(HEIFCoder.iccProfile(in: Data()) == nil)
    }

    @Test("HEIC is built in, after AVIF: the registry takes HEIC with HEIFCoder and leaves AVIF to AVIFCoder")
    func registry() throws {
        let heic = try HEIFFixture.data("rgb8.heic")
        let avif = try fixture("avif", "rgb8.avif")
        let registry = ImageCoderRegistry.allFormats
        #expect(registry.decoder(for: heic) is HEIFCoder)
        #expect(registry.decoder(for: avif) is AVIFCoder)
        #expect(!coder.canDecode(avif))
        let decoded = try registry.decode(heic)
        #expect(decoded.format == .heic)
        #expect(decoded.hasSamePixels(as: try HEIFFixture.reference("rgb8.ref.png")))
        // The fuzzing finding that crashed libheif goes through the registry as a typed error.
        #expect(throws: ImageError.self) { try registry.decode(fixture("fuzz", "heic-libheif-open-finding.heic")) }
    }
}
