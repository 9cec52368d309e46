import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF

/// GIF animation decoding against ImageMagick: every composited frame
/// equals `convert -coalesce`, durations equal `identify %T`, loop counts
/// equal ImageMagick's iterations.
@Suite("GIF animation decoding", .timeLimit(.minutes(2)))
struct GIFAnimationTests {
    let coder = GIFCoder()

    /// Frames with every disposal method, offsets, a transparent frame and delays of 0 and 1 cs.
    static let disposalArguments: [String] = [
        "-dispose", "none", "-delay", "10", "-size", "40x30", "xc:blue",
        "-dispose", "background", "-delay", "0", "-page", "+5+5", "(", "-size", "10x10", "xc:red", ")",
        "-dispose", "previous", "-delay", "1", "-page", "+20+10", "(", "-size", "12x8", "xc:lime", ")",
        "-dispose", "none", "-delay", "7", "-page", "+2+12",
        "(", "-size", "16x12", "xc:none", "-fill", "yellow", "-draw", "rectangle 3,3 10,8", ")",
        "-dispose", "background", "-delay", "25", "-page", "+0+0",
        "(", "-size", "40x30", "xc:none", "-fill", "white", "-draw", "circle 20,15 20,5", ")",
        "-dispose", "none", "-delay", "12", "-page", "+30+20", "(", "-size", "10x10", "xc:red", ")",
        "-loop", "3",
    ]

    func decodeAll(_ data: Data, options: ImageDecodingOptions = .init()) throws -> (AnimatedImage.Info, [Image]) {
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: options))
        var frames: [Image] = []
        for _ in 0..<10_000 {
            guard let frame = try decoder.decodeNextFrame() else { break }
            frames.append(frame)
        }
        return (decoder.info, frames)
    }

    @Test("every frame equals ImageMagick's -coalesce (disposal 0–3, offsets, transparency); delays and loop count as identify reads them")
    func matchesImageMagick() throws {
        let directory = TemporaryDirectory("gif-anim")
        let data = try AnimationFixtures.makeGIF(Self.disposalArguments, in: directory)
        let file = directory.appending("anim.gif")
        let (info, frames) = try decodeAll(data)
        let reference = try AnimationFixtures.coalescedFrames(of: file, in: directory)
        #expect(reference.count == 6)
        #expect(frames.count == reference.count)
        #expect(info.canvasWidth == 40 && info.canvasHeight == 30)
        for (index, (frame, expected)) in zip(frames, reference).enumerated() {
            #expect(frame.pixelFormat == .rgba8)
            #expect(expected.maximumDifference(from: frame) == 0, "frame \(index)")
        }
        let delays = try AnimationFixtures.delays(of: file)
        #expect(delays == [10, 0, 1, 7, 25, 12])
        #expect(info.frameDurations == delays.map { .milliseconds($0 * 10) })
        #expect(info.loopCount == 3)
        #expect(try AnimationFixtures.iterations(of: file) == 3)
        // Disposal 3 restored the canvas: frame 3 shows no lime where frame 2 drew it
        #expect(frames[2].pixel(x: 21, y: 11) == [0, 255, 0, 255])
        #expect(frames[3].pixel(x: 21, y: 11) == [0, 0, 255, 255])
        // Disposal 2 cleared frame 1's rectangle to transparent
        #expect(frames[2].pixel(x: 6, y: 6) == [0, 0, 0, 0])
    }

    @Test("rewinding starts over at frame 0 with an empty canvas: the second pass equals the first")
    func rewind() throws {
        let directory = TemporaryDirectory("gif-anim")
        let data = try AnimationFixtures.makeGIF(Self.disposalArguments, in: directory)
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        var first: [Image] = []
        while let frame = try decoder.decodeNextFrame() { first.append(frame) }
        #expect(decoder.nextFrameIndex == 6)
        try decoder.rewind()
        #expect(decoder.nextFrameIndex == 0)
        for expected in first { #expect(try decoder.decodeNextFrame() == expected) }
        #expect(try decoder.decodeNextFrame() == nil)
    }

    @Test("loop count in plays: none stored is 1, 0 is forever, a stored n repeats n times after the first play")
    func loopCounts() throws {
        let frames = [AnimationFixtures.RawFrame.filled(width: 2, height: 2, color: 0), .filled(width: 2, height: 2, color: 1)]
        for (loop, expected) in [(nil, 1), (0, 0), (1, 2), (5, 6), (65535, 65536)] as [(Int?, Int)] {
            let decoder = try #require(try coder.makeAnimatedFrameDecoder(AnimationFixtures.rawGIF(screen: (2, 2), loop: loop, frames: frames), options: .init()))
            #expect(decoder.info.loopCount == expected, "stored \(String(describing: loop))")
        }
        // ImageMagick agrees on a file it wrote with -loop 0
        let directory = TemporaryDirectory("gif-anim")
        _ = try AnimationFixtures.makeGIF(["-size", "4x4", "xc:red", "xc:blue", "-loop", "0"], in: directory)
        #expect(try AnimationFixtures.iterations(of: directory.appending("anim.gif")) == 0)
        let data = try Data(contentsOf: directory.appending("anim.gif"))
        #expect(try coder.makeAnimatedFrameDecoder(data, options: .init())?.info.loopCount == 0)
    }

    @Test("a single-frame GIF is a still image: no frame decoder")
    func stillIsNotAnimated() throws {
        let directory = TemporaryDirectory("gif-anim")
        let data = try AnimationFixtures.makeGIF(["-size", "4x4", "xc:red"], in: directory)
        #expect(try coder.makeAnimatedFrameDecoder(data, options: .init()) == nil)
    }

    @Test("the raw builder's frames decode to their palette colours (the hostile cases bend a valid file)")
    func rawBuilder() throws {
        let data = AnimationFixtures.rawGIF(screen: (3, 2), frames: [
            .filled(width: 3, height: 2, color: 0), .filled(x: 1, y: 1, width: 2, height: 1, color: 2),
        ])
        let (_, frames) = try decodeAll(data)
        #expect(frames.count == 2)
        #expect(frames[0].pixels == [UInt8](repeating: 0, count: 0) + Array([[255, 0, 0, 255]].joined()) * 6)
        #expect(frames[1].pixel(x: 0, y: 1) == [255, 0, 0, 255])
        #expect(frames[1].pixel(x: 1, y: 1) == [0, 255, 0, 255])
        #expect(frames[1].pixel(x: 2, y: 1) == [0, 255, 0, 255])
    }
}

private func * (lhs: [UInt8], rhs: Int) -> [UInt8] { Array([[UInt8]](repeating: lhs, count: rhs).joined()) }
