import Foundation
import Testing
@testable import AsyncWebImage

/// Converting a decoder's fresh image to sRGB rewrites its own buffer (no
/// second one as large as the image), by every route (the matrix/TRC fast
/// path, lcms2, the grey table), with the same pixels as a conversion into
/// a new buffer; an image someone else also holds is never written.
@Suite("In-place colour conversion", .timeLimit(.minutes(1)))
struct InPlaceColorConversionTests {
    /// A copy of `image`'s pixels in a storage of its own, which nothing else references.
    private static func freshCopy(of image: Image) -> Image {
        image.withUnsafeBytes { source in
            Image.make(width: image.width, height: image.height, pixelFormat: image.pixelFormat, format: image.format) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<$0.count]))
            }
        }
    }

    @Test("fresh images convert in place, shared ones into a new buffer, to the same pixels", arguments: [
        ("adobe-rgb.png", true), ("adobe-rgb.png", false), ("display-p3-alpha.png", true), ("display-p3-alpha.png", false),
        ("gray-profile.jpg", true),
    ])
    func inPlace(name: String, fastPath: Bool) throws {
        // Given a file's own pixels and profile (decoded keeping the profile)
        let kept = try ColorManagementTests.decode(name, options: .init(keepsColorProfile: true))
        let profile = try #require(kept.iccProfile)
        let original = kept.withUnsafeBytes { [UInt8]($0) }
        // When a fresh copy, referenced once, is converted
        let fresh = Self.freshCopy(of: kept)
        let storage = ObjectIdentifier(fresh.storage)
        let buffer = fresh.withUnsafeBytes { $0.baseAddress }
        let converted = ColorManager.manage(consume fresh, profile: .icc(profile), options: .init(), usingFastPath: fastPath)
        // Then its own storage and buffer carry the result (a new buffer
        // would have been allocated while the old one was alive, so at
        // another address)
        #expect(converted.colorConversion == .converted)
        #expect(ObjectIdentifier(converted.storage) == storage)
        #expect(converted.withUnsafeBytes { $0.baseAddress } == buffer)
        // When the kept image, which this test still holds, is converted
        let copied = ColorManager.manage(kept, profile: .icc(profile), options: .init(), usingFastPath: fastPath)
        // Then the result is a new buffer, the held image is untouched, and both conversions agree
        #expect(copied.withUnsafeBytes { $0.baseAddress } != kept.withUnsafeBytes { $0.baseAddress })
        #expect(kept.pixels == original)
        #expect(converted.maximumChannelDifference(from: copied) == 0)
        #expect(try #require(converted.maximumChannelDifference(from: kept)) > 3)
        // And opaque files match ImageMagick's conversion (ColorManagementTests checks alpha)
        if kept.pixelFormat != .rgba8 {
            let expected = try ColorManagementTests.expected(name + (kept.pixelFormat == .gray8 ? ".gray" : ".rgb"), kept.pixelFormat)
            #expect(try #require(converted.maximumChannelDifference(from: expected)) <= 3)
        }
    }
}
