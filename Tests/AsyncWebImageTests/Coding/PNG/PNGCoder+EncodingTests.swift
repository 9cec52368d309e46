import Foundation
import Testing
@testable import AsyncWebImage

@Suite("PNGCoder encoding", .timeLimit(.minutes(2)))
struct PNGCoderEncodingTests {
    let coder = PNGCoder()

    @Test("encodes all four pixel formats and decodes them back exactly", arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
    func roundTrip(format: PixelFormat) throws {
        // Given an image with padded rows and varied bytes
        let (width, height) = (29, 17)
        let stride = width * format.bytesPerPixel + 5
        let pixels = (0..<(stride * height)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ $0 / 7) }
        let image = try Image(width: width, height: height, pixelFormat: format, bytesPerRow: stride, pixels: pixels, orientation: .left)
        // When encoded and decoded
        let data = try coder.encode(image, as: .png, quality: 0.3)
        #expect(ImageFormat.detect(data) == .png)
        let decoded = try coder.decode(data, options: .init())
        // Then pixels, format and orientation survive
        #expect(decoded.pixelFormat == format)
        #expect(decoded.hasSamePixels(as: image))
        #expect(decoded.orientation == .left)
    }

    @Test("the compression level trades size for speed, never pixels")
    func compressionLevels() throws {
        // Given a 160×120 photo-like image
        let image = try coder.decode(PNGFixture.data("progressive-plain"), options: .init())
        // When encoded at levels 0, 1 and 9 (and out-of-range values, clamped)
        let sizes = try [0, 1, 9, -5, 42].map { level in
            let data = try PNGCoder(compressionLevel: level).encode(image, as: .png, quality: 1)
            #expect(try coder.decode(data, options: .init()).hasSamePixels(as: image))
            return data.count
        }
        // Then stored is largest, 9 smallest, and clamping maps to 0 and 9
        #expect(sizes[0] > sizes[1] && sizes[1] >= sizes[2])
        #expect(sizes[3] == sizes[0] && sizes[4] == sizes[2])
        #expect(sizes[0] > 160 * 120 * 3)
    }

    @Test("refuses to encode other formats")
    func encodeOtherFormat() throws {
        let image = try Image(width: 1, height: 1, pixelFormat: .gray8, pixels: [0])
        #expect(throws: ImageError.encodingFailed(.jpeg, "PNGCoder only writes PNG")) {
            try coder.encode(image, as: .jpeg, quality: 1)
        }
    }
}
