import AWILocking
import Foundation
import LoopbackServer
import Synchronization
import Testing
@testable import AsyncWebImage

/// Playback's frame decodes under the CPU limiter: counted in the frame
/// decoders themselves, not timed.
@Suite("AnimatedImage.Playback: frame decodes under the limiter", .timeLimit(.minutes(2)))
struct AnimationPlaybackTests {
    /// A clock whose sleeps end at once: playback runs as fast as it decodes.
    struct ImmediateClock: Clock {
        typealias Instant = ContinuousClock.Instant
        var now: Instant { .now }
        var minimumResolution: Duration { .zero }
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
    }

    /// Frame decodes in progress across every decoder of one test, and the most seen at once.
    final class Overlap: Sendable {
        let state = Lock((now: 0, most: 0, total: 0))

        /// Enters a decode, lingers until another decode is in progress (at
        /// most about 20 ms, so that decodes which may overlap do), leaves.
        func decode() {
            state.withLock { state in
                state.now += 1
                state.total += 1
                state.most = max(state.most, state.now)
            }
            for _ in 0..<200 where state.withLock({ $0.now }) < 2 { usleep(100) }
            state.withLock { $0.now -= 1 }
        }
    }

    /// Solid 2×2 frames; every decode goes through `overlap`.
    final class SolidFrames: AnimatedFrameDecoder {
        let info: AnimatedImage.Info
        let overlap: Overlap
        private(set) var nextFrameIndex = 0

        init(frames: Int, overlap: Overlap) {
            info = AnimatedImage.Info(canvasWidth: 2, canvasHeight: 2, frameDurations: Array(repeating: .milliseconds(20), count: frames), loopCount: 1)
            self.overlap = overlap
        }

        func decodeNextFrame() throws -> Image? {
            guard nextFrameIndex < info.frameCount else { return nil }
            overlap.decode()
            defer { nextFrameIndex += 1 }
            return try Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: Array(repeating: UInt8(nextFrameIndex), count: 16))
        }

        func rewind() throws { nextFrameIndex = 0 }
    }

    /// `count` animations of `frames` solid frames each, decoding through
    /// `overlap`, played under `limiter`.
    static func animations(_ count: Int, frames: Int, overlap: Overlap, limiter: ConcurrencyLimiter) -> [AnimatedImage] {
        (0..<count).map { _ in
            AnimatedImage(
                decoder: SolidFrames(frames: frames, overlap: overlap), makeDecoder: { SolidFrames(frames: frames, overlap: overlap) },
                limiter: limiter
            )
        }
    }

    @Test("8 playbacks of 6-frame animations with a limit of 1: every frame decoded, never two at once")
    func oneAtATime() async throws {
        // Given 8 animations whose limiter has 1 permit
        let overlap = Overlap()
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let animations = Self.animations(8, frames: 6, overlap: overlap, limiter: limiter)
        // When all play at once
        let frames = try await withThrowingTaskGroup(of: [Int].self) { group in
            for animation in animations {
                group.addTask {
                    var indices: [Int] = []
                    for try await frame in animation.frames(clock: ImmediateClock()) { indices.append(frame.index) }
                    return indices
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then each played its 6 frames, 48 decodes in all, one at a time
        #expect(frames.count == 8 && frames.allSatisfy { $0 == Array(0..<6) })
        let state = overlap.state.withLock { $0 }
        #expect(state.total == 48)
        #expect(state.most == 1)
        #expect(limiter.availablePermits == 1)
    }

    @Test("with 2 permits, two playbacks do decode at once (the observation can see an overlap)")
    func overlapIsVisible() async throws {
        let overlap = Overlap()
        let limiter = ConcurrencyLimiter(limit: 2, heavyThreadNice: nil)
        let animations = Self.animations(2, frames: 6, overlap: overlap, limiter: limiter)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for animation in animations {
                group.addTask { for try await _ in animation.frames(clock: ImmediateClock()) {} }
            }
            try await group.waitForAll()
        }
        #expect(overlap.state.withLock { $0.most } == 2)
    }

    @Test("a playback waiting for a permit ends (nil, no error) when its task is cancelled")
    func cancelledWhileWaiting() async throws {
        let overlap = Overlap()
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let animation = Self.animations(1, frames: 3, overlap: overlap, limiter: limiter)[0]
        // Given the only permit held elsewhere
        try await limiter.acquire()
        let player = Task {
            var count = 0
            for try await _ in animation.frames(clock: ImmediateClock()) { count += 1 }
            return count
        }
        // When the player waits for it and is cancelled
        #expect(await eventually { limiter.waitingCount == 1 })
        player.cancel()
        // Then it ends with no frame and nothing decoded
        #expect(try await player.value == 0)
        #expect(overlap.state.withLock { $0.total } == 0)
        limiter.release()
    }

    @Test("an animation the loader decodes plays under the loader's cpuLimiter")
    func loaderLimiter() async throws {
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let harness = try PipelineHarness(progressiveCoders: true) { $0.cpuLimiter = limiter }
        let frames = (0..<3).map { AnimationFixtures.RawFrame.filled(width: 2, height: 2, color: UInt8($0)) }
        harness.server.route("/a.gif", .ok(AnimationFixtures.rawGIF(screen: (2, 2), frames: frames), contentType: "image/gif"))
        let response = try await harness.loader.response(harness.server.url("/a.gif"))
        let animation = try #require(response.image.animation)
        #expect(animation.limiter === limiter)
        #expect(try animation.applyingToFrames { $0 }.limiter === limiter)
    }
}
