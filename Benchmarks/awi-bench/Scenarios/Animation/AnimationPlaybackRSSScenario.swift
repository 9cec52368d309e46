import AWIBenchResults
import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import AsyncWebImageWebP

/// Playing a 300-frame 1920×1080 animated WebP from start to end through
/// `AnimatedImage.frames(clock:)`, the way a player would, on a clock that
/// never waits: the process's peak RSS may grow by at most the frame
/// buffer's bound (16 MiB by default) plus 64 MiB, whereas holding every
/// frame would take 300 × 8.3 MB = 2.4 GB.
struct AnimationPlaybackRSSScenario: Scenario {
    let name = "animation-playback-rss"
    let summary = "300-frame 1080p animated WebP played through AnimatedImage.frames(clock:): RSS growth ≤ buffer bound + 64 MiB"

    private static let frameCount = 300
    private static let width = 1920, height = 1080
    private static let slack = 64 << 20

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let caseName = "\(Self.frameCount) frames \(Self.width)×\(Self.height)"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(caseName: caseName, context: context)
        }]
    }

    private func measure(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let data = try Self.synthesize()
        let image = try ImageCoderRegistry.allFormats.decode(data, options: .init())
        guard let animation = image.animation, animation.frameCount == Self.frameCount else {
            throw BenchmarkFailure("the synthesized file did not decode as a \(Self.frameCount)-frame animation")
        }
        ResourceUsage.resetPeakRSS()
        guard let startRSS = ResourceUsage.currentRSSBytes() else { throw BenchmarkFailure("no /proc/self/status: cannot read RSS") }
        let start = ResourceUsage.now()
        var played = 0
        var highestSampled = startRSS
        for try await frame in animation.frames(clock: InstantClock()) {
            blackHole(frame)
            played += 1
            if played % 25 == 0 {
                highestSampled = max(highestSampled, ResourceUsage.currentRSSBytes() ?? 0)
                context.progress.update(fraction: Double(played) / Double(Self.frameCount))
            }
            if played == Self.frameCount { break }
        }
        let used = ResourceUsage.now().since(start)
        let peak = max(highestSampled, ResourceUsage.peakRSSBytes() ?? 0)
        let growth = peak - startRSS
        let allowed = animation.maxBufferBytes + Self.slack

        var row = ResultRow(scenario: name, caseName: caseName)
        row.throughput = Double(played) / used.wall
        row.unit = "frames/s"
        row.cpuSeconds = used.processCPU / Double(max(played, 1))
        row.peakRSS = peak
        row.baseline = "RSS before \(Format.bytes(startRSS))"
        row.target = "growth ≤ \(Format.bytes(allowed))"
        row.passed = played == Self.frameCount && growth <= allowed
        row.iterations = 1
        row.note = "RSS grew \(Format.bytes(growth)) (peak \(Format.bytes(peak))) playing \(played) frames of "
            + "\(Format.bytes(Self.width * Self.height * 4)) each; frame buffer bound \(Format.bytes(animation.maxBufferBytes)), "
            + "peak buffered \(Format.bytes(animation.peakBufferedBytes)); file \(Format.bytes(data.count))"
        return row
    }

    /// A 300-frame 1080p animated WebP: a moving gradient, lossy at low
    /// quality and libwebp's fastest method (the file's size does not matter
    /// here, the canvases do). Frames are made one at a time.
    private static func synthesize() throws -> Data {
        var index = 0
        return try AnimatedWebPEncoder(quality: 0.3, method: 0).encodeAnimation(loopCount: 1) {
            guard index < frameCount else { return nil }
            defer { index += 1 }
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            let shift = index * 7
            for y in 0..<height {
                let row = y * width * 3
                for x in 0..<width {
                    pixels[row + x * 3] = UInt8(truncatingIfNeeded: x + shift)
                    pixels[row + x * 3 + 1] = UInt8(truncatingIfNeeded: y)
                    pixels[row + x * 3 + 2] = UInt8(truncatingIfNeeded: (x ^ y) + index)
                }
            }
            return (try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels), .milliseconds(40))
        }
    }
}

/// A clock whose sleeps return at once: playback at full speed, every frame
/// still yielded in order through the same buffer.
private struct InstantClock: Clock {
    typealias Instant = ContinuousClock.Instant
    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws { try Task.checkCancellation() }
}
