import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP

/// Every frame of the animated WebP fixtures of
/// `Fixtures/make-animation-fixtures.sh` (gif2webp, img2webp) against
/// ImageMagick's `-coalesce` of the same file; durations and loop counts
/// against what `webpmux -info` lists.
@Suite("WebP animation: decoding every frame", .timeLimit(.minutes(1)))
struct WebPAnimationDecoderTests {
    let coder = WebPCoder()

    @Test("the container's canvas, durations and loop count come before any frame", arguments: [
        ("lossy.webp", [100, 80, 120, 40, 60], 3),
        ("lossless.webp", [30, 30, 70, 70, 70], 0),
        // gif2webp keeps the GIF's delays (10 20 0 30 5 cs), a 0 becoming 100 ms
        ("disposal.webp", [100, 200, 100, 300, 50], 2),
    ])
    func header(name: String, durations: [Int], loopCount: Int) throws {
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(try fixture("animation", name), options: .init()))
        #expect(decoder.info.canvasWidth == 40 && decoder.info.canvasHeight == 30)
        #expect(decoder.info.frameDurations == durations.map { .milliseconds($0) })
        #expect(decoder.info.loopCount == loopCount)
        #expect(decoder.nextFrameIndex == 0)
    }

    @Test("a lossless animation gives back its source frames exactly, ImageMagick's coalesce where it is right")
    func losslessFrames() throws {
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(try fixture("animation", "lossless.webp"), options: .init()))
        let frames = try decodeAll(decoder)
        #expect(frames.count == 5)
        for (index, frame) in frames.enumerated() {
            #expect(frame.pixelFormat == .rgba8 && frame.size == PixelSize(width: 40, height: 30))
            #expect(try PAMReference("animation", "source-\(index)").maximumDifference(from: frame) == 0, "frame \(index)")
            // ImageMagick 6.9 ignores "no blend" (see the fixture script): it agrees before frame 3
            if index < 3 {
                #expect(try PAMReference("animation", "lossless-webp-\(index)").maximumDifference(from: frame) == 0)
            }
        }
    }

    @Test("lossy frames: within 1 of ImageMagick's coalesce (same libwebp, own blending), within 80 of the source (q 70 on sharp colour edges), alpha exact")
    func lossyFrames() throws {
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(try fixture("animation", "lossy.webp"), options: .init()))
        let frames = try decodeAll(decoder)
        #expect(frames.count == 5)
        for (index, frame) in frames.enumerated() {
            if index < 3 {
                let difference = try #require(try PAMReference("animation", "lossy-webp-\(index)").maximumDifference(from: frame))
                #expect(difference <= 1, "frame \(index): \(difference)")
            }
            let source = try PAMReference("animation", "source-\(index)")
            let ours = PAMReference.rgba(frame)
            #expect(stride(from: 3, to: ours.count, by: 4).allSatisfy { ours[$0] == source.rgba[$0] }, "alpha of frame \(index)")
            let difference = try #require(source.maximumDifference(from: frame))
            #expect(difference <= 80, "frame \(index): \(difference)")
        }
    }

    @Test("gif2webp's WebP plays the GIF's disposal: each frame equals the GIF's coalesced frame")
    func disposalMatchesTheGIF() throws {
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(try fixture("animation", "disposal.webp"), options: .init()))
        for (index, frame) in try decodeAll(decoder).enumerated() {
            #expect(try PAMReference("animation", "disposal-gif-\(index)").maximumDifference(from: frame) == 0)
        }
    }

    @Test("after the last frame comes nil; rewind starts over with the same frames")
    func endAndRewind() throws {
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(try fixture("animation", "lossless.webp"), options: .init()))
        let first = try decodeAll(decoder)
        #expect(try decoder.decodeNextFrame() == nil)
        #expect(decoder.nextFrameIndex == 5)
        try decoder.rewind()
        #expect(decoder.nextFrameIndex == 0)
        let second = try decodeAll(decoder)
        #expect(second.count == 5 && zip(first, second).allSatisfy { $0.hasSamePixels(as: $1) })
        #expect(!first[0].hasSamePixels(as: first[4]))
    }

    @Test("a still WebP and a one-frame animation have no frame decoder")
    func stillsHaveNone() throws {
        #expect(try coder.makeAnimatedFrameDecoder(try fixture("webp", "lossy.webp"), options: .init()) == nil)
        #expect(try coder.makeAnimatedFrameDecoder(try fixture("animation", "one-frame.webp"), options: .init()) == nil)
    }

    @Test("frames × canvas over maxAnimationPixelCount, or a canvas over maxPixelCount, fail before decoding")
    func limits() throws {
        let data = try fixture("animation", "lossy.webp")
        var options = ImageDecodingOptions()
        options.maxAnimationPixelCount = 5 * 40 * 30 - 1
        #expect(throws: ImageError.tooLarge(.animationPixels, limit: 5999, actual: 6000)) {
            try coder.makeAnimatedFrameDecoder(data, options: options)
        }
        options.maxAnimationPixelCount = 6000
        #expect(try coder.makeAnimatedFrameDecoder(data, options: options) != nil)
        options.maxPixelCount = 1000
        #expect(throws: ImageError.tooLarge(.pixels, limit: 1000, actual: 1200)) {
            try coder.makeAnimatedFrameDecoder(data, options: options)
        }
    }

    @Test("an ANMF cut off by the end of the file: the frames before it play, it throws a typed error", arguments: [false, true])
    func truncatedFrame(riffSizeMatchesFile: Bool) throws {
        // Given the lossless file cut inside its last ANMF chunk (optionally with
        // the RIFF size rewritten to the cut length, so the chunk runs past the RIFF end)
        var bytes = [UInt8](try fixture("animation", "lossless.webp"))
        let lastANMF = try #require((0..<(bytes.count - 4)).last { bytes[$0..<($0 + 4)].elementsEqual("ANMF".utf8) })
        bytes = Array(bytes[..<(lastANMF + 30)])
        if riffSizeMatchesFile {
            let size = UInt32(bytes.count - 8)
            for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: size >> (8 * index)) }
        }

        // When its frames are decoded
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(Data(bytes), options: .init()))
        #expect(decoder.info.frameCount == 5)
        for index in 0..<4 {
            let frame = try #require(try decoder.decodeNextFrame())
            #expect(try PAMReference("animation", "source-\(index)").maximumDifference(from: frame) == 0)
        }

        // Then the fifth is a typed error
        #expect(throws: ImageError.undecodable(.webp, "truncated: frame 4 runs past the end of the data")) {
            try decoder.decodeNextFrame()
        }
    }

    @Test("50,000 frames (a 2.4 MB file) are refused from the header's count, before libwebpdemux walks them")
    func tooManyFrames() throws {
        // Given the full-canvas ANMF of webp/animated.webp repeated 50,000 times
        let bytes = [UInt8](try fixture("webp", "animated.webp"))
        var chunks: [(String, ArraySlice<UInt8>)] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let end = min(bytes.count, offset + 8 + size + size % 2)
            chunks.append((String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self), bytes[offset..<end]))
            offset = end
        }
        let frame = try #require(chunks.last { $0.0 == "ANMF" }).1
        var body = Array("WEBP".utf8) + chunks.filter { $0.0 != "ANMF" }.flatMap(\.1)
        for _ in 0..<50_000 { body += frame }
        let size = UInt32(body.count)
        let file = Data(Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + body)

        // Then the animated API and the still decode refuse it at once
        #expect(throws: ImageError.undecodable(.webp, "50000 frames, over the 10000 an animated WebP may have here")) {
            try WebPCoder().makeAnimatedFrameDecoder(file, options: .init())
        }
        #expect(throws: ImageError.self) { try WebPCoder().decode(file, options: .init()) }
    }

    @Test("bad containers throw typed errors", arguments: [0, 12, 20, 40])
    func badContainers(length: Int) throws {
        let bytes = [UInt8](try fixture("animation", "lossy.webp"))[..<length]
        #expect(throws: ImageError.self) { try coder.makeAnimatedFrameDecoder(Data(bytes), options: .init()) }
    }
}

/// Every remaining frame of `decoder`, at most 1000.
func decodeAll(_ decoder: any AnimatedFrameDecoder) throws -> [Image] {
    var frames: [Image] = []
    while frames.count < 1000, let frame = try decoder.decodeNextFrame() {
        frames.append(frame)
    }
    return frames
}
