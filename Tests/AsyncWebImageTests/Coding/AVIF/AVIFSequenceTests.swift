import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageAVIF

/// AVIF image sequences and libavif's strict checks, on
/// `Fixtures/make-conformance-fixtures.sh`'s avifenc files.
@Suite("AVIF: image sequences and strictness", .timeLimit(.minutes(1)))
struct AVIFSequenceTests {
    let coder = AVIFCoder()

    @Test("a lossless sequence: three frames equal to avifenc's inputs, durations from the sample table, looping")
    func losslessFrames() throws {
        let data = try fixture("conformance", "avif-sequence-lossless.avif")
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        #expect(decoder.info.frameDurations == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
        #expect(decoder.info.loopCount == 0)
        #expect(decoder.info.canvasWidth == 20 && decoder.info.canvasHeight == 16)
        for name in ["red", "green", "blue"] {
            let frame = try #require(try decoder.decodeNextFrame())
            #expect(frame.pixelFormat == .rgba8)
            #expect(try PAMReference("conformance", name).maximumDifference(from: frame) == 0, "\(name)")
        }
        #expect(try decoder.decodeNextFrame() == nil)
        try decoder.rewind()
        #expect(try PAMReference("conformance", "red").maximumDifference(from: try #require(try decoder.decodeNextFrame())) == 0)
    }

    @Test("a lossy sequence: every frame equals avifdec --index N")
    func lossyFrames() throws {
        let data = try fixture("conformance", "avif-sequence-lossy.avif")
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        #expect(decoder.info.frameDurations == [.milliseconds(100), .milliseconds(50), .milliseconds(80)])
        for index in 0..<3 {
            let frame = try #require(try decoder.decodeNextFrame())
            #expect(try PAMReference("conformance", "avif-sequence-lossy-\(index)").maximumDifference(from: frame) == 0)
        }
    }

    @Test("the registry: an AnimatedImage with lazy frames; the first frame only when asked; a still AVIF has none")
    func registry() async throws {
        let data = try fixture("conformance", "avif-sequence-lossless.avif")
        let registry = ImageCoderRegistry.builtIn.adding(coder)
        let image = try registry.decode(data)
        let animation = try #require(image.animation)
        #expect(animation.frameCount == 3)
        #expect(animation.framesDecoded == 1)
        #expect(try PAMReference("conformance", "blue").maximumDifference(from: try await animation.frame(at: 2)) == 0)
        var firstOnly = ImageDecodingOptions()
        firstOnly.decodesFirstFrameOnly = true
        let first = try registry.decode(data, options: firstOnly)
        #expect(first.animation == nil)
        #expect(try PAMReference("conformance", "red").maximumDifference(from: first) == 0)
        let thumbnail = try registry.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 10, height: 8)))
        #expect(thumbnail.size == PixelSize(width: 10, height: 8))
        #expect(try await thumbnail.animation?.frame(at: 1).size == PixelSize(width: 10, height: 8))
        #expect(try coder.makeAnimatedFrameDecoder(try fixture("avif", "rgb8.avif"), options: .init()) == nil)
    }

    @Test("limits: frames × canvas over maxAnimationPixelCount, canvas over maxPixelCount, before decoding")
    func limits() throws {
        let data = try fixture("conformance", "avif-sequence-lossless.avif")
        var options = ImageDecodingOptions()
        options.maxAnimationPixelCount = 900
        #expect(throws: ImageError.tooLarge(.animationPixels, limit: 900, actual: 960)) {
            try coder.makeAnimatedFrameDecoder(data, options: options)
        }
        #expect(throws: ImageError.tooLarge(.pixels, limit: 300, actual: 320)) {
            try coder.makeAnimatedFrameDecoder(data, options: .init(maxPixelCount: 300))
        }
    }

    @Test("the animated encoder: frames and durations survive a round trip (near-lossless quality)")
    func encoderRoundTrip() throws {
        let source = try #require(try coder.makeAnimatedFrameDecoder(try fixture("conformance", "avif-sequence-lossless.avif"), options: .init()))
        let encoded = try AnimatedAVIFEncoder(quality: 1, speed: 9).encodeAnimation(from: source)
        #expect(ImageFormat.detect(encoded) == .avif)
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(encoded, options: .init()))
        #expect(decoder.info.frameDurations == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
        // 4:2:0 chroma smears the sharp colour edges; flat areas come back within a few levels
        for (name, x, y) in [("red", 10, 8), ("green", 15, 12), ("blue", 3, 3)] {
            let frame = try #require(try decoder.decodeNextFrame())
            let reference = try PAMReference("conformance", name)
            let expected = Array(reference.rgba[((y * reference.width + x) * 4)..<((y * reference.width + x) * 4 + 4)])
            let got = try #require(frame.pixel(x: x, y: y))
            #expect(zip(got, expected).allSatisfy { abs(Int($0) - Int($1)) <= 4 }, "\(name): \(got) vs \(expected)")
        }
        #expect(throws: ImageError.self) { try AnimatedAVIFEncoder().encodeAnimation([], durations: [], loopCount: 0) }
        let small = Image.make(width: 4, height: 4, pixelFormat: .rgb8, format: .avif) { _ in }
        let large = Image.make(width: 8, height: 4, pixelFormat: .rgb8, format: .avif) { _ in }
        #expect(throws: ImageError.self) {
            try AnimatedAVIFEncoder().encodeAnimation([small, large], durations: [.milliseconds(10), .milliseconds(10)], loopCount: 0)
        }
    }

    @Test("an odd clean-aperture offset: lenient by default (the whole image, as avifdec --no-strict), refused when strict")
    func strictness() throws {
        let data = try fixture("conformance", "avif-clap-odd-offset.avif")
        let image = try coder.decode(data, options: .init())
        #expect(try PAMReference("conformance", "avif-clap-odd-offset").maximumDifference(from: image) == 0)
        #expect(throws: ImageError.self) { try AVIFCoder(strictness: .strict).decode(data, options: .init()) }
    }
}
