import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF

/// Hostile GIF animations: typed errors, bounded work, earlier frames usable.
@Suite("GIF animation: bad input", .timeLimit(.minutes(2)))
struct GIFAnimationBadInputTests {
    let coder = GIFCoder()
    typealias Frame = AnimationFixtures.RawFrame
    /// How many of the 100,000 frames are decoded: all of them, but under a
    /// sanitizer (10× slower, there for races, not for load) the first 10,000.
    let framesDecoded = testTimeScale > 1 ? 10_000 : 100_000

    @Test("100,000 frames: refused by the animation pixel limit before any decoding, or decoded in bounded time within it")
    func hundredThousandFrames() throws {
        let frames = [Frame](repeating: .filled(width: 1, height: 1, color: 1, delay: 0), count: 100_000)
        // 100,000 × 100×100 = 10⁹ pixels + 1 frame over: refused at once
        let big = AnimationFixtures.rawGIF(screen: (100, 100), frames: frames + [.filled(width: 1, height: 1, color: 0)])
        let start = ContinuousClock.now
        #expect(throws: ImageError.tooLarge(.animationPixels, limit: 1_000_000_000, actual: 100_001 * 10_000)) {
            try coder.makeAnimatedFrameDecoder(big, options: .init())
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        // On a 2×2 canvas they are allowed; counting them decodes nothing, and all decode in bounded time
        let small = AnimationFixtures.rawGIF(screen: (2, 2), frames: frames)
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(small, options: .init()))
        #expect(decoder.info.frameCount == 100_000)
        #expect(decoder.nextFrameIndex == 0)
        var count = 0
        while count < framesDecoded, try decoder.decodeNextFrame() != nil { count += 1 }
        #expect(count == framesDecoded)
        // A lower limit refuses the same file
        var options = ImageDecodingOptions()
        options.maxAnimationPixelCount = 399_999
        #expect(throws: ImageError.tooLarge(.animationPixels, limit: 399_999, actual: 400_000)) {
            try coder.makeAnimatedFrameDecoder(small, options: options)
        }
    }

    @Test("100,000 empty (0×0) frames are frames that only wait: counted, decoded without pixels")
    func emptyFrames() throws {
        let empty = Frame(width: 0, height: 0, delay: 2, lzw: [2, 0])
        let data = AnimationFixtures.rawGIF(screen: (2, 2), frames: [.filled(width: 2, height: 2, color: 1)] + [Frame](repeating: empty, count: 100_000))
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        #expect(decoder.info.frameCount == 100_001)
        let first = try #require(try decoder.decodeNextFrame())
        var last = first
        var count = 1
        while count < framesDecoded + 1, let frame = try decoder.decodeNextFrame() { last = frame; count += 1 }
        #expect(count == framesDecoded + 1)
        #expect(last == first)
    }

    @Test("frames reaching past the canvas are clipped; a frame wholly outside draws nothing")
    func outsideCanvas() throws {
        let data = AnimationFixtures.rawGIF(screen: (4, 3), frames: [
            .filled(width: 4, height: 3, color: 1),
            .filled(x: 2, y: 1, width: 10, height: 10, color: 2),
            .filled(x: 60000, y: 60000, width: 5, height: 5, color: 0),
        ])
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        _ = try decoder.decodeNextFrame()
        let clipped = try #require(try decoder.decodeNextFrame())
        #expect(clipped.size == PixelSize(width: 4, height: 3))
        for y in 0..<3 {
            for x in 0..<4 {
                let expected: [UInt8] = x >= 2 && y >= 1 ? [0, 255, 0, 255] : [0, 0, 255, 255]
                #expect(clipped.pixel(x: x, y: y) == expected, "(\(x), \(y))")
            }
        }
        let outside = try #require(try decoder.decodeNextFrame())
        #expect(outside == clipped)
    }

    @Test("a zero-size canvas is a typed error")
    func zeroCanvas() {
        for screen in [(0, 0), (0, 5), (5, 0)] {
            let data = AnimationFixtures.rawGIF(screen: screen, frames: [.filled(width: 1, height: 1, color: 0), .filled(width: 1, height: 1, color: 1)])
            #expect(throws: ImageError.self) { try coder.makeAnimatedFrameDecoder(data, options: .init()) }
            #expect {
                try coder.makeAnimatedFrameDecoder(data, options: .init())
            } throws: { error in
                guard case .undecodable(.gif, _)? = error as? ImageError else { return false }
                return true
            }
        }
    }

    @Test("broken LZW in frame 7: frames 0–6 decode, frame 7 is a typed error, and so is every call after it until a rewind")
    func brokenFrameSeven() throws {
        var frames = (0..<10).map { Frame.filled(width: 4, height: 4, color: UInt8($0 % 3)) }
        // Code 7 before any code is defined: giflib's "image is defective"
        frames[7].lzw = [2, 3, 0xFF, 0xFF, 0xFF, 0]
        let data = AnimationFixtures.rawGIF(screen: (4, 4), frames: frames)
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        #expect(decoder.info.frameCount == 10)
        for index in 0..<7 {
            let frame = try #require(try decoder.decodeNextFrame())
            let color: [UInt8] = [[255, 0, 0, 255], [0, 0, 255, 255], [0, 255, 0, 255]][index % 3]
            #expect(frame.pixel(x: 3, y: 3) == color)
        }
        for _ in 0..<2 {
            #expect {
                try decoder.decodeNextFrame()
            } throws: { error in
                guard case .undecodable(.gif, _)? = error as? ImageError else { return false }
                return true
            }
        }
        try decoder.rewind()
        #expect(try decoder.decodeNextFrame()?.pixel(x: 0, y: 0) == [255, 0, 0, 255])
    }

    @Test("data cut inside frame 3: the scan keeps the complete frames; cut anywhere, never a trap")
    func truncated() throws {
        let data = AnimationFixtures.rawGIF(screen: (4, 4), frames: (0..<5).map { Frame.filled(width: 4, height: 4, color: UInt8($0 % 3)) })
        for end in stride(from: 0, to: data.count, by: 3) {
            let prefix = data.prefix(end)
            do {
                guard let decoder = try coder.makeAnimatedFrameDecoder(prefix, options: .init()) else { continue }
                var count = 0
                while try decoder.decodeNextFrame() != nil, count < 10 { count += 1 }
                #expect(count == decoder.info.frameCount)
            } catch {
                #expect(error is ImageError)
            }
        }
    }

    @Test("a canvas over the pixel limit fails before any allocation")
    func hugeCanvas() {
        let data = AnimationFixtures.rawGIF(screen: (65535, 65535), frames: [.filled(width: 1, height: 1, color: 0), .filled(width: 1, height: 1, color: 1)])
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 65535 * 65535)) {
            try coder.makeAnimatedFrameDecoder(data, options: .init())
        }
    }
}
