import Foundation
import Testing
@testable import AsyncWebImage

/// Profiles that cannot be used: the image decodes unconverted and says why.
@Suite("Colour profile failures", .timeLimit(.minutes(2)))
struct ColorProfileFailureTests {
    /// display-p3.jpg with its ICC APP2 segment replaced by `segments`.
    static func jpeg(replacingProfileWith segments: [UInt8]) throws -> Data {
        let data = [UInt8](try fixture("icc", "display-p3.jpg"))
        var offset = 2
        while data[offset] == 0xFF, data[offset + 1] != 0xDA {
            let end = offset + 2 + (Int(data[offset + 2]) << 8 | Int(data[offset + 3]))
            if data[offset + 1] == 0xE2 { return Data(data[..<offset] + segments + data[end...]) }
            offset = end
        }
        throw ImageError.invalidImage("no APP2 in the fixture")
    }

    static var p3Profile: Data {
        get throws {
            try Data(contentsOf: #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appendingPathComponent("icc/display-p3.icc"))
        }
    }

    /// The reason of a skipped conversion, `nil` otherwise.
    static func skipReason(_ data: Data, options: ImageDecodingOptions = .init()) throws -> String? {
        let image = try JPEGCoder().decode(data, options: options)
        // Unconverted: the same pixels as a decode with the profile's chunks unrecognised
        let plain = try JPEGCoder().decode(ColorManagementTests.breakingICCSignature(data), options: options)
        #expect(image.hasSamePixels(as: plain) && image.iccProfile == nil)
        guard case .skipped(let reason) = image.colorConversion else { return nil }
        return reason
    }

    @Test("a truncated, garbage or mismatched profile leaves the pixels unconverted, with the reason")
    func badProfiles() throws {
        let profile = [UInt8](try Self.p3Profile)
        let segment = [UInt8](JPEGICCProfileReader.segments(for: Data(profile)))
        // Chunk 1 of 2: the second never came
        var firstOfTwo = segment
        firstOfTwo[4 + 13] = 2
        #expect(try Self.skipReason(Self.jpeg(replacingProfileWith: firstOfTwo))?.contains("1 of 2 chunks") == true)
        // The profile cut to half its length (its header says more)
        let half = JPEGICCProfileReader.segments(for: Data(profile.prefix(profile.count / 2)))
        #expect(try Self.skipReason(Self.jpeg(replacingProfileWith: half))?.contains("lcms2") == true)
        // Garbage of a profile's length
        var generator = SystemRandomNumberGenerator()
        let garbage = JPEGICCProfileReader.segments(for: Data((0..<profile.count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        #expect(try Self.skipReason(Self.jpeg(replacingProfileWith: garbage))?.contains("lcms2 cannot read") == true)
        // A grey profile on RGB pixels
        let grayProfile = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/Gray.icc"))
        let gray = JPEGICCProfileReader.segments(for: grayProfile)
        #expect(try Self.skipReason(Self.jpeg(replacingProfileWith: gray)) == "a GRAY profile for RGB pixels")
        // A header lcms2 accepts, with no tags: no transform can be built
        var empty = Array(profile.prefix(132))
        empty[0..<4] = [0, 0, 0, 132]
        empty[128..<132] = [0, 0, 0, 0]
        let tagless = JPEGICCProfileReader.segments(for: Data(empty))
        let reason = try Self.skipReason(Self.jpeg(replacingProfileWith: tagless))
        #expect(reason?.contains("lcms2") == true)
        // Over the size limit: not read beyond it
        var options = ImageDecodingOptions()
        options.maximumColorProfileBytes = 100
        #expect(try Self.skipReason(fixture("icc", "display-p3.jpg"), options: options)?.contains("limit") == true)
    }

    @Test("a profile over 64 KiB spans several APP2 chunks, read back in sequence order")
    func chunkOrder() throws {
        // Given a 150 000-byte "profile" split in 3 chunks, written last chunk first
        let big = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let segments = JPEGICCProfileReader.segments(for: big)
        var chunks: [[UInt8]] = []
        var offset = 0
        while offset < segments.count {
            let end = offset + 2 + (Int(segments[offset + 2]) << 8 | Int(segments[offset + 3]))
            chunks.append(Array(segments[offset..<end]))
            offset = end
        }
        #expect(chunks.count == 3)
        let data = try Self.jpeg(replacingProfileWith: chunks.reversed().flatMap { $0 })
        // Then the reader reassembles them by sequence number
        let read = data.withUnsafeBytes { JPEGICCProfileReader.profile(in: $0, limit: 1 << 20) }
        #expect(read == .icc(big))
        // A repeated chunk is an error, not a longer profile
        let repeated = try Self.jpeg(replacingProfileWith: chunks[0] + chunks[0] + chunks[1] + chunks[2])
        #expect(repeated.withUnsafeBytes { JPEGICCProfileReader.profile(in: $0, limit: 1 << 20) } == .unreadable("ICC chunk 1 appears twice"))
        // Over the limit: refused once the sum passes it
        #expect(data.withUnsafeBytes { JPEGICCProfileReader.profile(in: $0, limit: 100_000) }
            == .unreadable("the ICC profile is larger than the 100000-byte limit"))
    }

    @Test("transforms are cached per profile and pixel layout, within a bound")
    func cache() throws {
        let cache = ColorTransformCache(capacity: 2)
        let rgb = try Image(width: 2, height: 1, pixelFormat: .rgb8, pixels: [10, 200, 30, 250, 5, 90])
        let rgba = try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [10, 200, 30, 77])
        let p3 = try Self.p3Profile
        let adobe = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"))
        var converted: [Image] = []
        for _ in 0..<5 {
            converted.append(ColorManager.manage(rgb, iccProfile: p3, options: .init(), cache: cache))
        }
        #expect(cache.creations == 1)
        #expect(converted.allSatisfy { $0 == converted[0] && $0.colorConversion == .converted })
        #expect(converted[0].pixels != rgb.pixels)
        // Another layout is another transform
        let alpha = ColorManager.manage(rgba, iccProfile: p3, options: .init(), cache: cache)
        #expect(cache.creations == 2 && alpha.pixels[3] == 77)
        // A third entry evicts the least recently used (the RGB one)
        _ = ColorManager.manage(rgb, iccProfile: adobe, options: .init(), cache: cache)
        #expect(cache.creations == 3 && cache.count == 2)
        _ = ColorManager.manage(rgba, iccProfile: p3, options: .init(), cache: cache)
        #expect(cache.creations == 3)
        _ = ColorManager.manage(rgb, iccProfile: p3, options: .init(), cache: cache)
        #expect(cache.creations == 4)
        // Refusals are cached as well
        let garbage = Data(repeating: 0x41, count: 500)
        _ = ColorManager.manage(rgb, iccProfile: garbage, options: .init(), cache: cache)
        _ = ColorManager.manage(rgb, iccProfile: garbage, options: .init(), cache: cache)
        #expect(cache.creations == 5)
    }

    @Test("re-encoding keeps a kept profile (JPEG APP2, PNG iCCP) and declares sRGB after conversion")
    func reencoding() throws {
        let p3 = try Self.p3Profile
        for name in ["display-p3.jpg", "display-p3.png"] {
            let kept = try ColorManagementTests.decode(name, options: .init(keepsColorProfile: true))
            for coder in [JPEGCoder() as any ImageEncoding & ImageDecoding, PNGCoder()] {
                let format: ImageFormat = coder is JPEGCoder ? .jpeg : .png
                let data = try coder.encode(kept, as: format, quality: 1)
                let again = try coder.decode(data, options: .init(keepsColorProfile: true))
                #expect(again.iccProfile == p3 && again.colorConversion == .kept)
                let converted = try coder.decode(data, options: .init())
                #expect(converted.colorConversion == .converted)
            }
        }
        // A converted image written as PNG says sRGB, and decodes with nothing to do
        let converted = try ColorManagementTests.decode("display-p3.png")
        let png = try PNGCoder().encode(converted, as: .png, quality: 1)
        #expect(png.range(of: Data("sRGB".utf8)) != nil && png.range(of: Data("iCCP".utf8)) == nil)
        let decoded = try PNGCoder().decode(png, options: .init())
        #expect(decoded.colorConversion == Image.ColorConversion.none && decoded.hasSamePixels(as: converted))
        // A converted JPEG carries no APP2
        let jpeg = try JPEGCoder().encode(converted, as: .jpeg, quality: 0.9)
        #expect(jpeg.range(of: Data("ICC_PROFILE".utf8)) == nil)
    }

    @Test("a WebP's ICCP profile (standalone RIFF fixture) converts its pixels like ImageMagick within ±3")
    func webPProfile() throws {
        // Given the ICCP chunk of the lossless WebP, whose pixels are the PNG's
        let webp = [UInt8](try fixture("icc", "display-p3.webp"))
        var offset = 12
        var iccp: Data?
        while offset + 8 <= webp.count {
            let size = Int(webp[offset + 4]) | Int(webp[offset + 5]) << 8 | Int(webp[offset + 6]) << 16 | Int(webp[offset + 7]) << 24
            if webp[offset..<(offset + 4)].elementsEqual("ICCP".utf8) { iccp = Data(webp[(offset + 8)..<(offset + 8 + size)]) }
            offset += 8 + size + (size & 1)
        }
        #expect(iccp == (try Self.p3Profile))
        // When the pixels go through the format-independent entry point
        let pixels = try PNGCoder().decode(fixture("icc", "display-p3.png"), options: .init(keepsColorProfile: true))
        let image = ColorManager.manage(pixels.with(colorProfile: nil, conversion: .none), iccProfile: iccp, options: .init())
        // Then they match ImageMagick's conversion of the WebP
        let expected = try ColorManagementTests.expected("display-p3.webp.rgb", .rgb8)
        #expect(try #require(image.maximumChannelDifference(from: expected)) <= 3)
    }
}
