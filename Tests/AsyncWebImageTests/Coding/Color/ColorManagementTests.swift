import Foundation
import Testing
@testable import AsyncWebImage

/// Decodes of files carrying colour profiles, against ImageMagick's own lcms
/// conversion to sRGB (`Fixtures/icc/make-icc-fixtures.sh`).
@Suite("Colour management", .timeLimit(.minutes(2)))
struct ColorManagementTests {
    /// The fixtures' size (48×32).
    static let width = 48, height = 32

    /// ImageMagick's sRGB pixels for a fixture, as an image.
    static func expected(_ name: String, _ format: PixelFormat) throws -> Image {
        try Image(width: width, height: height, pixelFormat: format, pixels: [UInt8](fixture("icc", name)))
    }

    static func decode(_ name: String, options: ImageDecodingOptions = .init()) throws -> Image {
        let data = try fixture("icc", name)
        return name.hasSuffix(".png") ? try PNGCoder().decode(data, options: options) : try JPEGCoder().decode(data, options: options)
    }

    @Test("Adobe RGB and Display P3 JPEGs and PNGs match ImageMagick's sRGB conversion within ±3", arguments: [
        "adobe-rgb.jpg", "display-p3.jpg", "adobe-rgb.png", "display-p3.png",
    ])
    func wideGamut(name: String) throws {
        // Given a file whose pixels are in a wide-gamut profile
        let expected = try Self.expected(name + ".rgb", .rgb8)
        // When it is decoded with the default options, or keeping the profile
        let image = try Self.decode(name)
        let kept = try Self.decode(name, options: .init(keepsColorProfile: true))
        // Then the default decode is sRGB as ImageMagick/lcms makes it
        #expect(image.colorConversion == .converted)
        #expect(image.iccProfile == nil)
        #expect(try #require(image.maximumChannelDifference(from: expected)) <= 3)
        // and the kept decode is the file's own pixels, far from sRGB, with the profile
        #expect(kept.colorConversion == .kept)
        #expect(try #require(kept.maximumChannelDifference(from: expected)) > 20)
        let profileFile = name.hasPrefix("adobe") ? URL(fileURLWithPath: "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc")
            : try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appendingPathComponent("icc/display-p3.icc")
        #expect(kept.iccProfile == (try Data(contentsOf: profileFile)))
        // and converting the kept image later gives the default decode
        #expect(try #require(kept.convertedToSRGB().maximumChannelDifference(from: image)) == 0)
    }

    @Test("RGBA: the colours are converted, alpha is copied unchanged")
    func alpha() throws {
        let image = try Self.decode("display-p3-alpha.png")
        let kept = try Self.decode("display-p3-alpha.png", options: .init(keepsColorProfile: true))
        let expected = try Self.expected("display-p3-alpha.png.rgba", .rgba8)
        #expect(image.pixelFormat == .rgba8 && image.colorConversion == .converted)
        var worstColor = 0
        var alphaChanged = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let p = try #require(image.pixel(x: x, y: y)), e = try #require(expected.pixel(x: x, y: y))
                let k = try #require(kept.pixel(x: x, y: y))
                if p[3] != k[3] { alphaChanged += 1 }
                // ImageMagick's colours of fully transparent pixels are not meaningful
                if e[3] > 0 { worstColor = max(worstColor, (0..<3).map { abs(Int(p[$0]) - Int(e[$0])) }.max()!) }
            }
        }
        #expect(alphaChanged == 0)
        #expect(worstColor <= 3)
    }

    @Test("a grey JPEG with a grey profile stays grey, matching ImageMagick within ±3")
    func gray() throws {
        let image = try Self.decode("gray-profile.jpg")
        #expect(image.pixelFormat == .gray8 && image.colorConversion == .converted)
        #expect(try #require(image.maximumChannelDifference(from: Self.expected("gray-profile.jpg.gray", .gray8))) <= 3)
        let kept = try Self.decode("gray-profile.jpg", options: .init(keepsColorProfile: true))
        #expect(kept.colorConversion == .kept && kept.pixelFormat == .gray8)
        #expect(try #require(kept.maximumChannelDifference(from: image)) > 3)
    }

    @Test("a CMYK JPEG with a profile converts through it, not by the naive formula")
    func cmyk() throws {
        let expected = try Self.expected("cmyk.jpg.rgb", .rgb8)
        let image = try Self.decode("cmyk.jpg")
        #expect(image.colorConversion == .converted && image.pixelFormat == .rgb8)
        let difference = try #require(image.maximumChannelDifference(from: expected))
        #expect(difference <= 3)
        // Keeping the profile cannot keep CMYK: still converted
        #expect(try Self.decode("cmyk.jpg", options: .init(keepsColorProfile: true)).colorConversion == .converted)
        // Without the profile (its APP2 signature broken) the naive formula is far off
        let naive = try JPEGCoder().decode(Self.breakingICCSignature(fixture("icc", "cmyk.jpg")), options: .init())
        #expect(naive.colorConversion == Image.ColorConversion.none)
        #expect(try #require(naive.maximumChannelDifference(from: expected)) > 20)
    }

    @Test("thumbnails are converted too")
    func thumbnail() throws {
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 24, height: 16))
        let image = try Self.decode("display-p3.jpg", options: options)
        var keptOptions = options
        keptOptions.keepsColorProfile = true
        let kept = try Self.decode("display-p3.jpg", options: keptOptions)
        #expect(image.size == PixelSize(width: 24, height: 16))
        #expect(image.colorConversion == .converted && kept.colorConversion == .kept)
        #expect(try #require(kept.convertedToSRGB().maximumChannelDifference(from: image)) == 0)
    }

    @Test("an sRGB profile costs no conversion: the same pixels as no profile")
    func sRGBShortCircuit() throws {
        // Given a JPEG carrying the sRGB profile of icc-profiles-free
        let srgb = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/sRGB.icc"))
        let plain = try JPEGCoder().decode(fixture("icc", "adobe-rgb.jpg"), options: .init(keepsColorProfile: true))
        let tagged = try JPEGCoder().encode(plain.with(colorProfile: srgb, conversion: .kept), as: .jpeg, quality: 0.9)
        // When decoded, with or without its ICC chunk recognised
        let image = try JPEGCoder().decode(tagged, options: .init())
        let kept = try JPEGCoder().decode(tagged, options: .init(keepsColorProfile: true))
        let untagged = try JPEGCoder().decode(Self.breakingICCSignature(tagged), options: .init())
        // Then nothing was converted and no profile is handed over
        #expect(image.colorConversion == Image.ColorConversion.none && image.iccProfile == nil)
        #expect(kept.colorConversion == Image.ColorConversion.none && kept.iccProfile == nil)
        #expect(image.hasSamePixels(as: untagged))
    }

    @Test("PNG gAMA 1.0 without cHRM: linear samples become sRGB")
    func gammaChunk() throws {
        let data = try fixture("icc", "gamma-linear.png")
        let image = try PNGCoder().decode(data, options: .init())
        let raw = try PNGCoder().decode(data, options: .init(keepsColorProfile: true))
        #expect(image.colorConversion == .converted && raw.colorConversion == .kept)
        #expect(raw.iccProfile != nil)
        var worst = 0
        for (value, converted) in zip(raw.pixels, image.pixels) {
            let linear = Double(value) / 255
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            worst = max(worst, abs(Int((encoded * 255).rounded()) - Int(converted)))
        }
        #expect(worst <= 2)
    }

    @Test("a PNG whose gAMA chunk has a bad CRC is undecodable, as a bad critical chunk is")
    func ancillaryCRC() throws {
        let data = try fixture("icc", "bad-crc-gama.png")
        do {
            _ = try PNGCoder().decode(data, options: .init())
            Issue.record("decoded a PNG with a damaged gAMA chunk")
        } catch let ImageError.undecodable(format, message) {
            #expect(format == .png)
            #expect(message.contains("checksum"))
        }
        // The same file with a correct CRC decodes
        #expect(throws: Never.self) { try PNGCoder().decode(fixture("icc", "gamma-linear.png"), options: .init()) }
    }

    @Test("one cached transform converts on several threads at once, with the same result")
    func concurrentUse() async throws {
        let data = try fixture("icc", "adobe-rgb.png")
        let reference = try PNGCoder().decode(data, options: .init())
        let results = try await withThrowingTaskGroup(of: Image.self) { group in
            for _ in 0..<8 {
                group.addTask { try PNGCoder().decode(data, options: .init()) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0.colorConversion == .converted && $0.hasSamePixels(as: reference) })
    }

    /// The JPEG with every `ICC_PROFILE` APP2 signature's first byte changed,
    /// so the segments stay but are no ICC chunks.
    static func breakingICCSignature(_ jpeg: Data) -> Data {
        var bytes = [UInt8](jpeg)
        let signature = Array("ICC_PROFILE".utf8)
        var index = 0
        while index + signature.count <= bytes.count {
            if bytes[index] == 0x49, Array(bytes[index..<(index + signature.count)]) == signature { bytes[index] = 0x58 }
            index += 1
        }
        return Data(bytes)
    }
}
