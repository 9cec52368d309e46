import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageHEIF

/// HEIC thumbnails resample libheif's rows as they are copied out of its
/// plane (no 8-bit full-size copy beside libheif's frame): the same pixels
/// as heif-convert's full decode resampled by the same filter.
@Suite("HEIF thumbnail resampling", .timeLimit(.minutes(1)))
struct HEIFThumbnailResamplingTests {
    @Test("8-bit, alpha and 10-bit thumbnails equal heif-convert's decode resampled", arguments: [
        ("rgb8", 0), ("rgba8", 0), ("rgb10", 1),
    ])
    func likeHeifConvert(name: String, tolerance: Int) throws {
        // Given heif-convert's full-size decode of a 64×48 file
        let reference = try HEIFFixture.reference("\(name).ref.png")
        for (asked, expected) in [(PixelSize(width: 32, height: 32), PixelSize(width: 32, height: 24)), (PixelSize(width: 20, height: 20), PixelSize(width: 20, height: 15))] {
            // When a thumbnail is decoded (Lanczos-3 in linear light, the default)
            let options = ImageDecodingOptions(thumbnailPixelSize: asked)
            let thumbnail = try HEIFCoder().decode(HEIFFixture.data("\(name).heic"), options: options)
            // Then it is heif-convert's pixels through the same filter (10-bit: heif-convert's 16-bit PNG rounded, within 1)
            #expect(thumbnail.size == expected)
            #expect(thumbnail.pixelFormat == reference.pixelFormat)
            let difference = try #require(thumbnail.maximumChannelDifference(from: options.resampleThumbnail(reference, to: expected)))
            #expect(difference <= tolerance, "\(name) → \(expected): \(difference)")
        }
    }

    @Test("premultiplied alpha is divided out row by row before the filter: the full decode resampled")
    func premultiplied() throws {
        let data = try HEIFFixture.data("premultiplied.heic")
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))
        let full = try HEIFCoder().decode(data, options: .init())
        let thumbnail = try HEIFCoder().decode(data, options: options)
        #expect(thumbnail.pixelFormat == .rgba8)
        #expect(thumbnail.hasSamePixels(as: options.resampleThumbnail(full, to: PixelSize(width: 32, height: 24))))
    }
}
