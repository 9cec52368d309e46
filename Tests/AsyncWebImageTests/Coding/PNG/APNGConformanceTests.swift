import Foundation
import Testing
@testable import AsyncWebImage

/// The APNG and PNG conformance cases of `Fixtures/make-conformance-fixtures.sh`:
/// a hidden default image in front of the only frame, a broken animation,
/// a damaged IDAT CRC.
@Suite("PNG and APNG: conformance cases", .timeLimit(.minutes(1)))
struct APNGConformanceTests {
    let coder = PNGCoder()

    @Test("one fdAT frame behind a hidden default image: the frame (green), not the default image (red)", arguments: [
        "apng-hidden-default-one-frame", "apng-hidden-default-split-fdat",
    ])
    func onlyFrameBehindHiddenDefault(name: String) throws {
        // Given an APNG whose default image (red) is not part of its one-frame animation (green)
        let data = try fixture("conformance", name + ".png")

        // When it is decoded as a still, through the registry and on its own
        let still = try coder.decode(data, options: .init())
        let registered = try ImageCoderRegistry.builtIn.decode(data)

        // Then both show the frame, as apngasm's input was; there is nothing to play
        let green = try PAMReference("conformance", "green")
        #expect(green.maximumDifference(from: still) == 0)
        #expect(green.maximumDifference(from: registered) == 0)
        #expect(registered.animation == nil)
        #expect(try coder.makeAnimatedFrameDecoder(data, options: .init()) == nil)
        // And a thumbnail is of the frame too
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 8)))
        #expect(thumbnail.size == PixelSize(width: 10, height: 8))
        #expect(thumbnail.pixel(x: 9, y: 7) == [0, 192, 0, 255])
    }

    @Test("a broken animation (a gap in the sequence numbers): no frame decoder, the default image as the still")
    func brokenAnimationGivesDefaultImage() throws {
        let data = try fixture("conformance", "apng-sequence-gap.png")
        #expect(try coder.makeAnimatedFrameDecoder(data, options: .init()) == nil)
        let image = try ImageCoderRegistry.builtIn.decode(data)
        #expect(image.animation == nil)
        #expect(try PAMReference("conformance", "red").maximumDifference(from: image) == 0)
    }

    @Test("a damaged CRC on the only IDAT (zlib stream intact) fails, full size and as a thumbnail")
    func badImageDataCRC() throws {
        let data = try fixture("conformance", "png-bad-idat-crc.png")
        for options in [ImageDecodingOptions(), ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 12, height: 8))] {
            #expect(throws: ImageError.self) { try coder.decode(data, options: options) }
            do {
                _ = try coder.decode(data, options: options)
            } catch let ImageError.undecodable(format, message) {
                #expect(format == .png)
                #expect(message.contains("checksum"))
            }
        }
        // The same bytes with the CRC right decode to ImageMagick's pixels
        var bytes = [UInt8](data)
        let idat = try #require(bytes.firstRange(of: Array("IDAT".utf8))).lowerBound - 4
        let length = Int(bytes[idat]) << 24 | Int(bytes[idat + 1]) << 16 | Int(bytes[idat + 2]) << 8 | Int(bytes[idat + 3])
        bytes[idat + 8 + length + 3] ^= 0x01
        let repaired = try coder.decode(Data(bytes), options: .init())
        #expect(try PAMReference("conformance", "png-bad-idat-crc").maximumDifference(from: repaired) == 0)
    }
}
