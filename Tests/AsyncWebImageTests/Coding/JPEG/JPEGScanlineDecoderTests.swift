import Foundation
import Testing
@_spi(Benchmarks) @testable import AsyncWebImage

/// Colour conversion a row group at a time, as libjpeg's scanline API
/// decodes (``JPEGScanlineDecoder``), against TurboJPEG's whole-image
/// decode converted afterwards (`Fixtures/icc/make-strip-fixtures.sh`:
/// 99×61 Adobe RGB JPEGs, so every last row group is partial).
@Suite("JPEG scanline decode with colour conversion", .timeLimit(.minutes(2)))
struct JPEGScanlineDecoderTests {
    static let fixtures = [
        "strips-420.jpg", "strips-422-restart.jpg", "strips-444-restart.jpg", "strips-420-progressive.jpg",
    ]

    static func coder(inStrips: Bool) -> JPEGCoder {
        var coder = JPEGCoder()
        coder.convertsWhileDecoding = inStrips
        return coder
    }

    @Test("converting each row group as it is decoded gives the whole-image conversion byte for byte", arguments: fixtures)
    func sameAsWholeImage(name: String) throws {
        // Given an Adobe RGB JPEG of odd height (restart markers, progressive, each sampling)
        let data = try fixture("icc", name)
        // When it is decoded converting row groups, converting the whole image after, and keeping the profile
        let strips = try Self.coder(inStrips: true).decode(data, options: .init())
        let whole = try Self.coder(inStrips: false).decode(data, options: .init())
        let kept = try JPEGCoder().decode(data, options: .init(keepsColorProfile: true))
        // Then both conversions ran and agree exactly
        #expect(strips.size == PixelSize(width: 99, height: 61) && strips.pixelFormat == .rgb8)
        #expect(strips.colorConversion == .converted && whole.colorConversion == .converted)
        #expect(strips.pixels == whole.pixels)
        // and the decode under them is TurboJPEG's: converting its kept pixels gives the same
        #expect(kept.convertedToSRGB().pixels == strips.pixels)
        // and the conversion changed the pixels (Adobe RGB's saturated colours leave sRGB)
        #expect(try #require(kept.maximumChannelDifference(from: strips)) > 20)
    }

    @Test("a thumbnail that is exactly a DCT scale converts row groups of the scaled decode")
    func scaled() throws {
        // Given the progressive fixture and a thumbnail size of exactly its 1/2 scale (50×31)
        let data = try fixture("icc", "strips-420-progressive.jpg")
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 50, height: 31))
        // When it is decoded both ways
        let strips = try Self.coder(inStrips: true).decode(data, options: options)
        let whole = try Self.coder(inStrips: false).decode(data, options: options)
        // Then the sizes and pixels agree
        #expect(strips.size == PixelSize(width: 50, height: 31))
        #expect(strips.colorConversion == .converted)
        #expect(strips.pixels == whole.pixels)
    }

    /// Where each start-of-scan segment of `bytes` begins.
    static func scans(_ bytes: [UInt8]) -> [Int] {
        (0..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
    }

    /// The baseline fixture with 1,000 bytes cut from its entropy-coded
    /// data (the EOI kept): libjpeg runs out of data in the scan and warns.
    static func cutScan() throws -> Data {
        let bytes = try [UInt8](fixture("icc", "strips-420.jpg"))
        let scan = try #require(scans(bytes).first)
        let data = scan + 2 + Int(bytes[scan + 2]) << 8 + Int(bytes[scan + 3])
        return Data(bytes[..<(data + 400)] + bytes[(data + 1400)...])
    }

    /// The progressive fixture with its second scan's spectral selection
    /// made DC and AC together (Ss 0, Se 63), which libjpeg rejects with a
    /// fatal error when it starts that scan, in the middle of the decode.
    static func badProgression() throws -> Data {
        var bytes = try [UInt8](fixture("icc", "strips-420-progressive.jpg"))
        let scan = try #require(scans(bytes).dropFirst().first)
        let spectral = scan + 5 + 2 * Int(bytes[scan + 4])
        bytes[spectral] = 0
        bytes[spectral + 1] = 63
        return Data(bytes)
    }

    @Test("damaged data through the scanline route fails with libjpeg's message, as through TurboJPEG")
    func damagedData() throws {
        // Given a file whose scan ends early (a warning that loses pixels)
        // and one with an invalid progressive scan (a fatal libjpeg error)
        for (data, fragment) in [(try Self.cutScan(), "premature end of data segment"), (try Self.badProgression(), "invalid progressive parameters")] {
            // When it is decoded converting row groups, and through TurboJPEG
            let strips = #expect(throws: ImageError.self) { try Self.coder(inStrips: true).decode(data, options: .init()) }
            let whole = #expect(throws: ImageError.self) { try Self.coder(inStrips: false).decode(data, options: .init()) }
            // Then both are typed undecodable errors carrying libjpeg's message
            guard case .undecodable(.jpeg, let message) = strips else {
                Issue.record("expected undecodable, got \(String(describing: strips))")
                continue
            }
            #expect(message.lowercased().contains(fragment), "\(message)")
            #expect(strips == whole)
        }
    }

    @Test("a file without an embedded profile never takes the scanline route and decodes as before")
    func noProfile() throws {
        // Given a JPEG without a profile (the fixture's profile broken)
        let data = ColorManagementTests.breakingICCSignature(try fixture("icc", "strips-420.jpg"))
        // When it is decoded with row-group conversion allowed
        let image = try Self.coder(inStrips: true).decode(data, options: .init())
        // Then nothing is converted
        #expect(image.colorConversion != .converted)
        #expect(image.pixels == (try JPEGCoder().decode(data, options: .init(keepsColorProfile: true))).pixels)
    }
}
