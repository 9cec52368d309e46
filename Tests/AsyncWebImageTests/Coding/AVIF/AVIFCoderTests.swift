import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageHEIF
@testable import AsyncWebImageAVIF
import AsyncWebImageAllFormats

/// The AVIF fixtures made by `Fixtures/make-avif-heif-fixtures.sh` and their
/// reference pixels (PNGs written by `avifdec` and `heif-convert`).
enum AVIFFixture {
    static func data(_ name: String) throws -> Data { try fixture("avif", name) }

    /// A reference PNG, decoded by the package's PNG coder (itself checked
    /// against ImageMagick in PNGCoderTests).
    static func reference(_ name: String) throws -> Image {
        try PNGCoder().decode(data(name), options: .init())
    }

    /// The mean absolute difference over every channel of two images of
    /// the same size and layout, or `nil` when they differ in either.
    static func meanChannelDifference(_ a: Image, _ b: Image) -> Double? {
        guard a.size == b.size, a.pixelFormat == b.pixelFormat else { return nil }
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                for (p, q) in zip(a.pixel(x: x, y: y)!, b.pixel(x: x, y: y)!) { total += abs(Int(p) - Int(q)) }
            }
        }
        return Double(total) / Double(a.width * a.height * a.pixelFormat.channelCount)
    }
}

@Suite("AVIFCoder", .timeLimit(.minutes(2)))
struct AVIFCoderTests {
    let coder = AVIFCoder()

    // MARK: Pixels

    @Test("decodes exactly as avifdec -d 8 (same libavif): 8-bit 4:2:0, alpha 4:4:4, 10-bit reduced to 8", arguments: [
        ("rgb8", PixelFormat.rgb8), ("rgba8", .rgba8), ("rgb10", .rgb8),
        ("irot1-imir0", .rgb8), ("irot3", .rgb8), ("imir1", .rgb8),
    ])
    func decodesLikeAvifdec(name: String, pixelFormat: PixelFormat) throws {
        // Given a fixture and avifdec's 8-bit PNG of it
        let reference = try AVIFFixture.reference("\(name).ref.png")
        // When decoded in full (stored pixels: irot/imir are reported, not applied)
        let image = try coder.decode(AVIFFixture.data("\(name).avif"), options: .init())
        // Then the pixels are avifdec's, byte for byte
        #expect(image.pixelFormat == pixelFormat)
        #expect(image.format == .avif)
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(image.hasSamePixels(as: reference), "max difference \(image.maximumChannelDifference(from: reference) ?? -1)")
    }

    @Test("alpha is straight: the ramp's transparent end keeps its colour")
    func alphaIsStraight() throws {
        let image = try coder.decode(AVIFFixture.data("rgba8.avif"), options: .init())
        // The alpha ramp runs from transparent (left) to opaque (right).
        let left = try #require(image.pixel(x: 0, y: 30)), right = try #require(image.pixel(x: 63, y: 30))
        #expect(left[3] < 15)
        #expect(right[3] > 240)
        // Premultiplied, a nearly transparent pixel would be nearly black.
        #expect(Int(left[0]) + Int(left[1]) + Int(left[2]) > 100, "\(left)")
    }

    @Test("10-bit: reduced to 8 bits with rounding — within 1 of libavif's 16-bit output rounded to 8 (round(v × 255 / 65535))")
    func tenBitRounds() throws {
        let image = try coder.decode(AVIFFixture.data("rgb10.avif"), options: .init())
        // PNGCoder rounds avifdec's 16-bit PNG to 8 bits: the ideal 8-bit value.
        let ideal = try AVIFFixture.reference("rgb10.ref16.png")
        let difference = try #require(image.maximumChannelDifference(from: ideal))
        #expect(difference <= 1, "max difference \(difference)")
        // Truncation would be off by one on about half the samples; count them.
        var offByOne = 0
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel(x: x, y: y) != ideal.pixel(x: x, y: y) { offByOne += 1 }
        }
        #expect(offByOne * 10 < image.width * image.height, "\(offByOne) pixels differ")
    }

    // MARK: Clean aperture

    @Test("clap crops the stored image to avifdec's derived rectangle (40×30 at 8,4), before irot; thumbnails start from the crop")
    func cleanAperture() throws {
        // Given a 64×48 AVIF whose clap keeps 40×30 at (8, 4), and ImageMagick's crop of avifdec's pixels
        let reference = try AVIFFixture.reference("clap.ref.png")
        // When decoded
        let image = try coder.decode(AVIFFixture.data("clap.avif"), options: .init())
        // Then only the aperture is left, pixel for pixel
        #expect(image.size == PixelSize(width: 40, height: 30))
        #expect(image.hasSamePixels(as: reference), "max difference \(image.maximumChannelDifference(from: reference) ?? -1)")

        // And with irot after it, the crop comes first and the turn second (MIAF's order)
        let turned = try coder.decode(AVIFFixture.data("clap-irot1.avif"), options: .init(applyOrientation: true))
        let upright = try AVIFFixture.reference("clap-irot1.upright.png")
        #expect(turned.size == PixelSize(width: 30, height: 40))
        #expect(turned.hasSamePixels(as: upright), "max difference \(turned.maximumChannelDifference(from: upright) ?? -1)")

        // And a thumbnail is the aperture's, keeping its 4:3 shape
        let thumbnail = try coder.decode(
            AVIFFixture.data("clap.avif"), options: .init(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        )
        #expect(thumbnail.size == PixelSize(width: 20, height: 15))
    }

    // MARK: Orientation

    @Test("irot/imir become the EXIF orientation; applied, the pixels are ImageMagick's turn of avifdec's, and agree with heif-convert's", arguments: [
        ("irot1-imir0", Image.Orientation.leftMirrored), ("irot3", .right), ("imir1", .upMirrored),
    ])
    func orientation(name: String, expected: Image.Orientation) throws {
        let data = try AVIFFixture.data("\(name).avif")
        let stored = try coder.decode(data, options: .init())
        #expect(stored.orientation == expected)
        let upright = try coder.decode(data, options: .init(applyOrientation: true))
        #expect(upright.orientation == .up)
        #expect(upright.size == stored.orientedSize)
        // Exact: ImageMagick rotated and mirrored avifdec's pixels as irot/imir say.
        let turned = try AVIFFixture.reference("\(name).upright.png")
        #expect(upright.hasSamePixels(as: turned), "max difference \(upright.maximumChannelDifference(from: turned) ?? -1)")
        // Independent: libheif applies irot/imir itself, but converts YUV
        // with other chroma upsampling (edges of the dark square differ by
        // up to ~70), so the mean is compared; a wrong turn or mirror moves
        // the square and the gradient and gives a mean over 20.
        let libheif = try AVIFFixture.reference("\(name).oriented.png")
        let mean = try #require(AVIFFixture.meanChannelDifference(upright, libheif))
        #expect(mean < 3, "mean difference \(mean)")
    }

    @Test("every combination of irot and imir maps to the orientation whose pixels are the transforms applied in order")
    func orientationTable() throws {
        // A 3×2 image with distinct pixels, turned and mirrored by hand.
        let base = try Image(width: 3, height: 2, pixelFormat: .gray8, pixels: [0, 1, 2, 3, 4, 5])
        func rotateAntiClockwise(_ image: Image) throws -> Image {
            var out: [UInt8] = []
            for y in 0..<image.width { for x in 0..<image.height { out.append(image.pixel(x: image.width - 1 - y, y: x)![0]) } }
            return try Image(width: image.height, height: image.width, pixelFormat: .gray8, pixels: out)
        }
        func mirror(_ image: Image, mode: Int) throws -> Image {
            var out: [UInt8] = []
            for y in 0..<image.height {
                for x in 0..<image.width {
                    out.append(mode == 0 ? image.pixel(x: x, y: image.height - 1 - y)![0] : image.pixel(x: image.width - 1 - x, y: y)![0])
                }
            }
            return try Image(width: image.width, height: image.height, pixelFormat: .gray8, pixels: out)
        }
        for rotation in 0..<4 {
            for mirrorMode in [nil, 0, 1] as [Int?] {
                var expected = base
                for _ in 0..<rotation { expected = try rotateAntiClockwise(expected) }
                if let mirrorMode { expected = try mirror(expected, mode: mirrorMode) }
                let orientation = Image.Orientation(heifRotation: rotation, mirror: mirrorMode)
                let applied = base.with(orientation: orientation).applyingOrientation()
                #expect(applied.hasSamePixels(as: expected), "irot \(rotation) imir \(String(describing: mirrorMode)) → \(orientation)")
                // The encoder writes the inverse mapping; it must give the same display.
                let (r, m) = orientation.heifTransforms
                #expect(Image.Orientation(heifRotation: r, mirror: m) == orientation)
            }
        }
    }

    // MARK: Thumbnails and scale-down

    @Test("thumbnails are the full decode resampled by the package's resampler, aspect kept or stretched")
    func thumbnails() throws {
        let data = try AVIFFixture.data("rgb8.avif")
        let full = try coder.decode(data, options: .init())
        let fitted = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(fitted.size == PixelSize(width: 16, height: 12))
        #expect(fitted.hasSamePixels(as: ImageResampler.resample(full, to: PixelSize(width: 16, height: 12))))
        let stretched = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 30), preserveAspectRatio: false))
        #expect(stretched.size == PixelSize(width: 10, height: 30))
        // Never enlarged.
        let big = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 640, height: 480)))
        #expect(big.hasSamePixels(as: full))
    }

    @Test("a thumbnail's size is in displayed pixels: a quarter-turned image fits by its oriented size")
    func orientedThumbnail() throws {
        let data = try AVIFFixture.data("irot3.avif")
        let stored = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 24, height: 24)))
        #expect(stored.size == PixelSize(width: 24, height: 18))
        #expect(stored.orientedSize == PixelSize(width: 18, height: 24))
        let upright = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 24, height: 24), applyOrientation: true))
        #expect(upright.size == PixelSize(width: 18, height: 24))
        #expect(upright.orientation == .up)
    }

    @Test("scaleDownLargeImages shrinks to the byte limit")
    func scaleDown() throws {
        let image = try coder.decode(AVIFFixture.data("rgba8.avif"), options: .init(scaleDownLargeImages: true, scaleDownLimitBytes: 64 * 48))
        #expect(image.width * image.height * 4 <= 64 * 48)
        #expect(image.width == 32 && image.height == 24)
    }

    // MARK: Limits and bad input

    @Test("the pixel limit is checked from the parsed header")
    func pixelLimit() throws {
        let data = try AVIFFixture.data("rgb8.avif")
        #expect(throws: ImageError.tooLarge(.pixels, limit: 3071, actual: 3072)) {
            try coder.decode(data, options: .init(maxPixelCount: 3071))
        }
        #expect(try coder.decode(data, options: .init(maxPixelCount: 3072)).size == PixelSize(width: 64, height: 48))
    }

    @Test("a huge ispe fails as too large, quickly, also beyond libavif's own limits; within ours libavif's refusal stands")
    func hugeSpatialExtents() throws {
        let original = try AVIFFixture.data("rgb8.avif")
        let large = try ISOBMFFFixtureEditing.withSpatialExtents(width: 16_000, height: 16_000, in: original)
        let huge = try ISOBMFFFixtureEditing.withSpatialExtents(width: 100_000, height: 100_000, in: original)
        let beyondLibavif = try ISOBMFFFixtureEditing.withSpatialExtents(width: 20_000, height: 20_000, in: original)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 256_000_000)) {
                try coder.decode(large, options: .init())
            }
            // Past libavif's own limits (16384² pixels, 32768 a side) its
            // parse refuses the file; over our limit too, that is the same
            // typed too-large, not an undecodable file.
            #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 10_000_000_000)) {
                try coder.decode(huge, options: .init())
            }
            #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 400_000_000)) {
                try coder.decode(beyondLibavif, options: .init())
            }
            // Within ours, libavif's refusal stands.
            #expect(throws: ImageError.undecodable(.avif, "BMFF parsing failed: Item ID [1] dimensions are too large [100000x100000]")) {
                try coder.decode(huge, options: .init(maxPixelCount: .max))
            }
        }
        #expect(elapsed < .seconds(1))
    }

    @Test("an ispe that disagrees with the AV1 frame: larger is scaled up by libavif within the limit, smaller meets the lowered libavif limit")
    func ispeDisagreeingWithFrame() throws {
        let original = try AVIFFixture.data("rgb8.avif")
        // libavif 0.11 scales a 64×48 frame to a larger ispe (what avifdec shows too).
        let larger = try ISOBMFFFixtureEditing.withSpatialExtents(width: 640, height: 480, in: original)
        let scaled = try coder.decode(larger, options: .init())
        #expect(scaled.size == PixelSize(width: 640, height: 480))
        #expect(throws: ImageError.tooLarge(.pixels, limit: 300_000, actual: 307_200)) {
            try coder.decode(larger, options: .init(maxPixelCount: 300_000))
        }
        // An ispe of 32×24 passes a 1000-pixel limit, but the 64×48 frame
        // must not: libavif's limit, lowered to ours, stops the AV1 decode.
        let smaller = try ISOBMFFFixtureEditing.withSpatialExtents(width: 32, height: 24, in: original)
        // Under the default limit libavif decodes the frame and scales it down to ispe.
        #expect(try coder.decode(smaller, options: .init()).size == PixelSize(width: 32, height: 24))
        do {
            let image = try coder.decode(smaller, options: .init(maxPixelCount: 1000))
            Issue.record("decoded \(image)")
        } catch ImageError.undecodable(.avif, let message) {
            // dav1d's frame-size limit (libavif's imageSizeLimit) refuses the 3072-pixel frame.
            #expect(message.contains("getNextImage() failed"), "\(message)")
        }
    }

    @Test("empty, one byte, random bytes and truncated files fail with ImageError")
    func junkAndTruncation() throws {
        for (label, data) in ISOBMFFFixtureEditing.junk(brand: "avif") {
            ISOBMFFFixtureEditing.expectImageError(coder, data, label)
        }
        for name in ["rgb8.avif", "rgba8.avif"] {
            for (label, data) in try ISOBMFFFixtureEditing.truncations(AVIFFixture.data(name)) {
                ISOBMFFFixtureEditing.expectImageError(coder, data, "\(name) \(label)")
            }
        }
    }

    @Test("lying box sizes fail with ImageError, except mdat's, which libavif never reads (items are found by iloc offsets)")
    func lyingBoxSizes() throws {
        let original = try AVIFFixture.data("rgba8.avif")
        let expected = try coder.decode(original, options: .init())
        for (label, data) in ISOBMFFFixtureEditing.lyingBoxSizes(original) {
            if label.hasPrefix("mdat") {
                #expect(try coder.decode(data, options: .init()) == expected, "\(label)")
            } else {
                ISOBMFFFixtureEditing.expectImageError(coder, data, label)
            }
        }
    }

    // MARK: ICC

    @Test("iccProfile returns the colr profile's bytes, nil without one or for junk")
    func iccProfile() throws {
        let profile = try AVIFFixture.data("profile.icc")
        #expect(AVIFCoder.iccProfile(in: try AVIFFixture.data("icc.avif")) == profile)
        #expect(AVIFCoder.iccProfile(in: try AVIFFixture.data("rgb8.avif")) == nil)
        #expect(AVIFCoder.iccProfile(in: Data()) == nil)
        #expect(AVIFCoder.iccProfile(in: Data(repeating: 7, count: 100)) == nil)
    }

    // MARK: Encoding

    @Test("encode then decode: 8-bit 4:2:0 AVIF close to the source; alpha and orientation kept")
    func roundTrip() throws {
        let source = try coder.decode(AVIFFixture.data("rgba8.avif"), options: .init())
        let encoded = try coder.encode(source.with(orientation: .right), as: .avif, quality: 0.9)
        #expect(ImageFormat.detect(encoded) == .avif)
        let decoded = try coder.decode(encoded, options: .init())
        #expect(decoded.orientation == .right)
        #expect(decoded.pixelFormat == .rgba8)
        // 4:2:0 at quantizer 6: the gradient survives (mean within 2), the
        // dark square's edges lose chroma detail (max within 80).
        let mean = try #require(AVIFFixture.meanChannelDifference(decoded, source))
        #expect(mean < 2, "mean difference \(mean)")
        let difference = try #require(decoded.maximumChannelDifference(from: source))
        #expect(difference <= 80, "max difference \(difference)")
        // The independent decoder agrees on the format: libheif reads it (AVIF brand).
        #expect(HEIFCoder().canDecode(encoded) == false)
    }

    @Test("quality and speed change the output; grey is written as colour")
    func qualityAndSpeed() throws {
        let source = try coder.decode(AVIFFixture.data("rgb8.avif"), options: .init())
        let small = try AVIFCoder(speed: 10).encode(source, as: .avif, quality: 0.1)
        let large = try AVIFCoder(speed: 10).encode(source, as: .avif, quality: 0.95)
        #expect(small.count < large.count)
        let slow = try AVIFCoder(speed: 2).encode(source, as: .avif, quality: 0.5)
        let fast = try AVIFCoder(speed: 10).encode(source, as: .avif, quality: 0.5)
        #expect(slow != fast)
        #expect(AVIFCoder.quantizer(forQuality: 1) == 0)
        #expect(AVIFCoder.quantizer(forQuality: 0) == 63)
        #expect(AVIFCoder.quantizer(forQuality: .nan) == AVIFCoder.quantizer(forQuality: 0.9))
        let gray = try Image(width: 8, height: 8, pixelFormat: .gray8, pixels: (0..<64).map { UInt8($0 * 4) })
        let decodedGray = try coder.decode(coder.encode(gray, as: .avif, quality: 1), options: .init())
        #expect(decodedGray.pixelFormat == .rgb8)
        #expect(try #require(decodedGray.maximumChannelDifference(from: AVIFCoder.widenedToRGB(gray))) <= 4)
        #expect(throws: ImageError.self) { try coder.encode(gray, as: .png, quality: 1) }
    }

    @Test("the built-in registry decodes AVIF with AVIFCoder and encodes AVIF")
    func registry() throws {
        let data = try AVIFFixture.data("rgb8.avif")
        #expect(ImageCoderRegistry.allFormats.decoder(for: data) is AVIFCoder)
        #expect(ImageCoderRegistry.allFormats.encoder(for: .avif) is AVIFCoder)
        #expect(try ImageCoderRegistry.allFormats.decode(data).format == .avif)
    }
}
