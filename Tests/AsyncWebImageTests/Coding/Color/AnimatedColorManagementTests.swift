import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP

/// Animation frames get the colour management still images get: an APNG
/// with an `iCCP` chunk and an animated WebP with an `ICCP` chunk, against
/// ImageMagick's sRGB conversion of each frame (apngdis's frames for the
/// APNG; `Fixtures/icc/make-animated-icc-fixtures.sh`).
@Suite("Colour management of animation frames", .timeLimit(.minutes(2)))
struct AnimatedColorManagementTests {
    static let names = ["display-p3-animated.png", "display-p3-animated.webp"]

    static func coder(_ name: String) -> any AnimatedImageDecoding & ImageDecoding {
        name.hasSuffix(".png") ? PNGCoder() : WebPCoder()
    }

    static func expected(_ name: String, frame: Int) throws -> Image {
        try Image(width: 24, height: 16, pixelFormat: .rgba8, pixels: [UInt8](fixture("icc", "\(name).\(frame).rgba")))
    }

    @Test("every frame of a Display P3 APNG or animated WebP matches ImageMagick's sRGB conversion within ±3", arguments: names)
    func frames(name: String) throws {
        // Given an animation whose frames are in Display P3
        let data = try fixture("icc", name)
        let profile = try fixture("icc", "display-p3.icc")
        // When its frames are decoded with the default options, and keeping the profile
        let decoder = try #require(try Self.coder(name).makeAnimatedFrameDecoder(data, options: .init()))
        let keeping = try #require(try Self.coder(name).makeAnimatedFrameDecoder(data, options: .init(keepsColorProfile: true)))
        #expect(decoder.info.frameCount == 3)
        for index in 0..<3 {
            let frame = try #require(try decoder.decodeNextFrame())
            let kept = try #require(try keeping.decodeNextFrame())
            let expected = try Self.expected(name, frame: index)
            // Then each frame is sRGB as ImageMagick makes it, alpha unchanged
            #expect(frame.colorConversion == .converted && frame.iccProfile == nil)
            #expect(try #require(frame.maximumChannelDifference(from: expected)) <= 3, "frame \(index)")
            #expect(zip(frame.pixels, expected.pixels).enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element.0 == $0.element.1 })
            // and the kept frames are the file's own pixels, with the profile
            #expect(kept.colorConversion == .kept && kept.iccProfile == profile)
            #expect(try #require(kept.maximumChannelDifference(from: expected)) > 20, "frame \(index)")
            #expect(try #require(kept.convertedToSRGB().maximumChannelDifference(from: frame)) == 0)
        }
        #expect(try decoder.decodeNextFrame() == nil)
    }

    @Test("the still decode of the same files (the first frame) is converted once, as frame 0", arguments: names)
    func firstFrame(name: String) throws {
        let data = try fixture("icc", name)
        let still = try Self.coder(name).decode(data, options: .init())
        #expect(still.colorConversion == .converted)
        #expect(try #require(still.maximumChannelDifference(from: Self.expected(name, frame: 0))) <= 3)
        let decoder = try #require(try Self.coder(name).makeAnimatedFrameDecoder(data, options: .init()))
        #expect(still.hasSamePixels(as: try #require(try decoder.decodeNextFrame())))
    }
}
