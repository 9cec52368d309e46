import AWILocking
import Foundation
import Synchronization
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF

/// The animated image model: lazy frames, the bounded buffer, preloading,
/// the browsers' duration rule, and playback on a manual clock.
@Suite("AnimatedImage", .timeLimit(.minutes(3)))
struct AnimatedImageTests {
    static func animation(_ data: Data, maxBufferBytes: Int = AnimatedImage.defaultMaxBufferBytes) throws -> AnimatedImage {
        let coder = GIFCoder()
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        return AnimatedImage(
            decoder: decoder, makeDecoder: { try coder.makeAnimatedFrameDecoder(data, options: .init())! },
            maxBufferBytes: maxBufferBytes
        )
    }

    /// `count` solid frames of `size`×`size`, each a different red, 4 cs apart.
    static func solidFrames(_ count: Int, size: Int, loop: Int, in directory: TemporaryDirectory) throws -> Data {
        var arguments = ["-delay", "4", "-size", "\(size)x\(size)"]
        arguments += (0..<count).map { "xc:rgb(\($0 % 256),\($0 / 256 * 40),0)" }
        return try AnimationFixtures.makeGIF(arguments + ["-loop", "\(loop)"], in: directory)
    }

    /// Plays `animation` on a test clock, moving the clock to each deadline
    /// the player sleeps for; the frames with the clock's time at each.
    static func play(_ animation: AnimatedImage, clock: TestClock, maxFrames: Int = 10_000) async throws -> [(AnimatedImage.Frame, Duration)] {
        let done = Locked(false)
        let player = Task {
            defer { done.withLock { $0 = true } }
            var seen: [(AnimatedImage.Frame, Duration)] = []
            for try await frame in animation.frames(clock: clock) {
                seen.append((frame, clock.now.offset))
                if seen.count >= maxFrames { break }
            }
            return seen
        }
        for _ in 0..<(maxFrames * 2 + 10) {
            if done.value { break }
            if let deadline = clock.nextDeadline {
                clock.advance(by: deadline.offset - clock.now.offset)
            } else {
                try await Task.sleep(for: .microseconds(100))
            }
        }
        return try await player.value
    }

    @Test("durations: stored delays of 0 and 1 cs play as 100 ms, others as stored; info keeps the stored values")
    func durations() throws {
        let directory = TemporaryDirectory("anim")
        let animation = try Self.animation(AnimationFixtures.makeGIF(GIFAnimationTests.disposalArguments, in: directory))
        #expect(animation.frameDurations == [100, 100, 100, 70, 250, 120].map { .milliseconds($0) })
        #expect(animation.info.frameDurations == [100, 0, 10, 70, 250, 120].map { .milliseconds($0) })
        #expect(animation.canvasSize == PixelSize(width: 40, height: 30))
        #expect(animation.frameCount == 6)
        #expect(animation.loopCount == 3)
    }

    @Test("frames decode on demand: asking for frame 3 decodes 0–3; asking again decodes nothing; going back starts over")
    func lazyFrames() async throws {
        let directory = TemporaryDirectory("anim")
        let data = try AnimationFixtures.makeGIF(GIFAnimationTests.disposalArguments, in: directory)
        let reference = try AnimationFixtures.coalescedFrames(of: directory.appending("anim.gif"), in: directory)
        // A buffer of one frame: every frame not just asked for is gone
        let animation = try Self.animation(data, maxBufferBytes: 1)
        #expect(animation.framesDecoded == 0)
        let third = try await animation.frame(at: 3)
        #expect(animation.framesDecoded == 4)
        #expect(reference[3].maximumDifference(from: third) == 0)
        _ = try await animation.frame(at: 3)
        #expect(animation.framesDecoded == 4)
        let first = try await animation.frame(at: 1)
        #expect(animation.framesDecoded == 6)
        #expect(reference[1].maximumDifference(from: first) == 0)
        await #expect(throws: ImageError.self) { try await animation.frame(at: 6) }
    }

    @Test("allFrames gives every frame with its duration, each decoded once under the limiter, in order")
    func allFrames() async throws {
        // Given an animation of 5 solid frames and a limiter of one permit
        let directory = TemporaryDirectory("anim")
        let data = try Self.solidFrames(5, size: 16, loop: 0, in: directory)
        let limiter = ConcurrencyLimiter(limit: 1)
        let frames = try #require(try GIFCoder().makeAnimatedFrameDecoder(data, options: ImageDecodingOptions()))
        let animation = AnimatedImage(
            decoder: frames, makeDecoder: { try #require(try GIFCoder().makeAnimatedFrameDecoder(data, options: ImageDecodingOptions())) },
            maxBufferBytes: 1, limiter: limiter
        )

        // When all frames are asked for at once
        let all = try await animation.allFrames()

        // Then each frame comes once, in order, with its duration and pixels
        #expect(all.map(\.index) == [0, 1, 2, 3, 4])
        #expect(all.map(\.duration) == animation.frameDurations)
        #expect(all.map { $0.image.pixel(x: 8, y: 8)?.first } == [0, 1, 2, 3, 4])
        #expect(animation.framesDecoded == 5)
        #expect(limiter.availablePermits == 1)
    }

    @Test("preloadAllFrames decodes every frame once; playing afterwards decodes nothing")
    func preload() async throws {
        let animation = try Self.animation(fixture("gif", "anim-300.gif"), maxBufferBytes: 1)
        try animation.preloadAllFrames()
        #expect(animation.isPreloaded)
        #expect(animation.framesDecoded == 300)
        #expect(animation.bufferedBytes == 300 * 128 * 128 * 4)
        #expect(animation.cost == 300 * 128 * 128 * 4)
        let played = try await Self.play(animation, clock: TestClock())
        #expect(played.count == 600)
        #expect(animation.framesDecoded == 300)
    }

    @Test("the buffer stays within its bound while a 300-frame 128×128 animation plays twice (default 16 MiB, 18.75 MiB of frames)")
    func bufferBound() async throws {
        let data = try fixture("gif", "anim-300.gif")
        let animation = try Self.animation(data)
        #expect(animation.frameCount == 300)
        #expect(animation.loopCount == 2)
        let frameBytes = 128 * 128 * 4
        #expect(animation.cost == AnimatedImage.defaultMaxBufferBytes)
        let played = try await Self.play(animation, clock: TestClock())
        #expect(played.count == 600)
        #expect(played.map(\.0.index) == Array(0..<300) + Array(0..<300))
        #expect(animation.peakBufferedBytes <= AnimatedImage.defaultMaxBufferBytes)
        #expect(animation.peakBufferedBytes >= AnimatedImage.defaultMaxBufferBytes - frameBytes)
        // One decode per frame shown, except those the buffer still held when the second play began
        #expect(animation.framesDecoded <= 600 && animation.framesDecoded >= 300)
        // The pixels are each frame's own colour
        for (frame, _) in played where frame.index % 50 == 7 {
            #expect(frame.image.pixel(x: 100, y: 60) == [UInt8(frame.index % 256), UInt8(frame.index / 256 * 40), 0, 255])
        }
    }

    @Test("playback yields each frame at its time on the clock, plays loopCount times, then ends when the last frame's time is over")
    func playbackTiming() async throws {
        let directory = TemporaryDirectory("anim")
        let animation = try Self.animation(AnimationFixtures.makeGIF(GIFAnimationTests.disposalArguments, in: directory))
        let clock = TestClock()
        let played = try await Self.play(animation, clock: clock)
        #expect(played.count == 18)
        var expected: Duration = .zero
        for (position, (frame, time)) in played.enumerated() {
            #expect(frame.index == position % 6)
            #expect(frame.loop == position / 6)
            #expect(time == expected, "frame \(position)")
            #expect(frame.duration == animation.frameDurations[frame.index])
            expected += frame.duration
        }
        #expect(clock.now.offset == expected)
        #expect(expected == .milliseconds(3 * 740))
    }

    @Test("playback of an endless animation ends when its task is cancelled")
    func cancellation() async throws {
        let directory = TemporaryDirectory("anim")
        let animation = try Self.animation(Self.solidFrames(3, size: 4, loop: 0, in: directory))
        #expect(animation.loopCount == 0)
        let clock = TestClock()
        let player = Task {
            var count = 0
            for try await _ in animation.frames(clock: clock) { count += 1 }
            return count
        }
        for _ in 0..<10 {
            #expect(await clock.waitForSleeper())
            clock.advance(by: .milliseconds(40))
        }
        #expect(await clock.waitForSleeper())
        player.cancel()
        let count = try await player.value
        #expect(count == 11)
    }

    @Test("a broken frame 7 ends playback with its typed error after frames 0–6; frames before it stay available")
    func brokenFrame() async throws {
        var frames = (0..<10).map { AnimationFixtures.RawFrame.filled(width: 2, height: 2, color: UInt8($0 % 3)) }
        frames[7].lzw = [2, 3, 0xFF, 0xFF, 0xFF, 0]
        let animation = try Self.animation(AnimationFixtures.rawGIF(screen: (2, 2), frames: frames))
        let clock = TestClock()
        let seen = Locked(0)
        let player = Task {
            for try await _ in animation.frames(clock: clock) { seen.withLock { $0 += 1 } }
        }
        for _ in 0..<100 {
            if seen.value == 7 { break }
            if let deadline = clock.nextDeadline { clock.advance(by: deadline.offset - clock.now.offset) } else { try await Task.sleep(for: .milliseconds(1)) }
        }
        for _ in 0..<1000 where clock.nextDeadline != nil {
            clock.advance(by: .milliseconds(100))
            try await Task.sleep(for: .milliseconds(1))
        }
        await #expect {
            try await player.value
        } throws: { error in
            guard case .undecodable(.gif, _)? = error as? ImageError else { return false }
            return true
        }
        #expect(seen.value == 7)
        #expect(try await animation.frame(at: 6).pixel(x: 0, y: 0) == [255, 0, 0, 255])
    }

    @Test("a derived animation applies its transform to every frame, with its own decoder")
    func applyingToFrames() async throws {
        let directory = TemporaryDirectory("anim")
        let animation = try Self.animation(Self.solidFrames(5, size: 32, loop: 0, in: directory))
        let resized = try animation.applyingToFrames { try ImageTransformers.Resize(size: PixelSize(width: 8, height: 8)).transform($0) }
        for index in 0..<5 {
            let frame = try await resized.frame(at: index)
            #expect(frame.size == PixelSize(width: 8, height: 8))
            #expect(frame.pixel(x: 4, y: 4)?.prefix(3) == [UInt8(index), 0, 0])
        }
        #expect(animation.framesDecoded == 0)
        #expect(resized.framesDecoded == 5)
    }
}
