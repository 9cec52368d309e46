import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF
import AsyncWebImageAllFormats

/// The first frame of the GIF fixtures (`Fixtures/make-webp-gif-fixtures.sh`)
/// against ImageMagick's first frame on its logical screen.
@Suite("GIFCoder: decoding real files", .timeLimit(.minutes(1)))
struct GIFCoderTests {
    let coder = GIFCoder()

    @Test("first frames equal ImageMagick's exactly", arguments: [
        ("still", PixelFormat.rgb8), ("interlaced", .rgb8), ("transparent", .rgba8), ("offset-animated", .rgba8),
    ])
    func firstFrame(name: String, format: PixelFormat) throws {
        // Given a GIF and ImageMagick's decode of its first frame
        let data = try fixture("gif", name + ".gif")
        let reference = try PAMReference("gif", name)

        // When it is decoded
        let image = try coder.decode(data, options: .init())

        // Then it is the logical screen with the frame on it, pixel for pixel
        #expect(image.pixelFormat == format)
        #expect(image.format == .gif)
        #expect(reference.maximumDifference(from: image) == 0)
    }

    @Test("an interlaced GIF decodes to the same pixels as the same image stored sequentially")
    func interlacedEqualsSequential() throws {
        let still = try coder.decode(try fixture("gif", "still.gif"), options: .init())
        let interlaced = try coder.decode(try fixture("gif", "interlaced.gif"), options: .init())
        #expect(still.hasSamePixels(as: interlaced))
    }

    @Test("a frame smaller than the screen: transparent around it, its pixels at its offset")
    func offsetFrame() throws {
        // Given a 20×10 frame at (7, 5) on a 40×30 screen (the second frame is all blue)
        let image = try coder.decode(try fixture("gif", "offset-animated.gif"), options: .init())

        // Then the canvas is the screen; outside the frame is transparent; no blue anywhere
        #expect(image.size == PixelSize(width: 40, height: 30))
        #expect(image.pixel(x: 6, y: 5)?[3] == 0)
        #expect(image.pixel(x: 7, y: 5)?[3] == 255)
        #expect(image.pixel(x: 26, y: 14)?[3] == 255)
        #expect(image.pixel(x: 27, y: 14)?[3] == 0)
        #expect(image.pixel(x: 7, y: 15)?[3] == 0)
        let blue = (0..<30).contains { y in (0..<40).contains { x in image.pixel(x: x, y: y) == [0, 0, 255, 255] } }
        #expect(!blue)
    }

    @Test("thumbnails are the canvas resampled by the package's thumbnail filter; scale-down too")
    func thumbnail() throws {
        let data = try fixture("gif", "transparent.gif")
        let full = try coder.decode(data, options: .init())
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        let thumbnail = try coder.decode(data, options: options)
        #expect(thumbnail.size == PixelSize(width: 20, height: 15))
        #expect(thumbnail.hasSamePixels(as: ImageResampler.resample(full, to: PixelSize(width: 20, height: 15))))
        let stretched = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 40), preserveAspectRatio: false))
        #expect(stretched.size == PixelSize(width: 10, height: 40))
        let scaled = try coder.decode(data, options: .init(scaleDownLargeImages: true, scaleDownLimitBytes: 2000))
        #expect(scaled.width * scaled.height * 4 <= 2000)
    }

    @Test("the built-in registry decodes GIF by its bytes")
    func registry() throws {
        let data = try fixture("gif", "still.gif")
        #expect(ImageCoderRegistry.allFormats.decoder(for: data) is GIFCoder)
        #expect(try PAMReference("gif", "still").maximumDifference(from: try ImageCoderRegistry.allFormats.decode(data)) == 0)
    }
}
