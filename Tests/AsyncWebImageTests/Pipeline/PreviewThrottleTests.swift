import Foundation
import Testing
import AWILocking
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// The real progressive JPEG decoder behind a gate: each preview call
/// records the bytes it was given, then blocks until the test lets it go.
struct GatedProgressiveDecoder: ProgressiveImageDecoding {
    var base: any ProgressiveImageDecoding
    let gate: Gate
    let calls: Locked<[Int]>

    mutating func preview(for data: Data) throws -> Image? {
        calls.withLock { $0.append(data.count) }
        gate.wait()
        return try base.preview(for: data)
    }
}

@Suite("PreviewThrottle: one preview decode at a time, never after stop", .timeLimit(.minutes(1)))
struct PreviewThrottleTests {
    let jpeg: Data
    let gate = Gate()
    let calls = Locked<[Int]>([])
    let delivered = Locked<[Image]>([])

    init() throws {
        jpeg = try fixture("jpeg", "large-progressive.jpg")
    }

    func throttle(interval: Duration = .zero) throws -> PreviewThrottle {
        let base = try #require((ImageCoderRegistry.allFormats.decoder(for: jpeg) as? any ProgressiveDecoderProviding)?.makeProgressiveDecoder(options: ImageDecodingOptions()))
        let delivered = delivered
        return PreviewThrottle(
            decoder: GatedProgressiveDecoder(base: base, gate: gate, calls: calls),
            interval: interval, limiter: ConcurrencyLimiter(limit: 2), transformer: nil,
            deliver: { image in delivered.withLock { $0.append(image) } }
        )
    }

    @Test("stop() returns while a preview decode runs, and that preview is never delivered")
    func stopDoesNotWait() async throws {
        // Given a preview decode blocked inside the decoder
        let throttle = try throttle()
        throttle.offer(jpeg.prefix(jpeg.count * 3 / 4))
        #expect(await pipelineEventually { calls.withLock { $0.count } == 1 })

        // When the throttle is stopped (the last byte arrived)
        throttle.stop()

        // Then stop returned with the decode still blocked; once it ends, nothing is delivered
        #expect(throttle.isStopped)
        gate.open(1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(delivered.withLock { $0.isEmpty })
        // and offers after stop start nothing
        throttle.offer(jpeg)
        try await Task.sleep(for: .milliseconds(20))
        #expect(calls.withLock { $0 } == [jpeg.count * 3 / 4])
    }

    @Test("offers during a decode replace each other: the next decode gets the newest bytes only")
    func newestBytesWin() async throws {
        // Given a decode in flight
        let throttle = try throttle()
        let sizes = [jpeg.count / 2, jpeg.count * 2 / 3, jpeg.count * 5 / 6]
        throttle.offer(jpeg.prefix(sizes[0]))
        #expect(await pipelineEventually { calls.withLock { $0.count } == 1 })

        // When two more offers arrive before it ends
        throttle.offer(jpeg.prefix(sizes[1]))
        throttle.offer(jpeg.prefix(sizes[2]))
        gate.open(2)

        // Then exactly one more decode ran, on the newest bytes, and both previews were delivered in order
        #expect(await pipelineEventually { delivered.withLock { $0.count } == 2 })
        #expect(calls.withLock { $0 } == [sizes[0], sizes[2]])
        #expect(delivered.withLock { $0.allSatisfy(\.isPreview) })
        throttle.stop()
    }

    @Test("a long interval holds the second decode back")
    func intervalBetweenStarts() async throws {
        let throttle = try throttle(interval: .seconds(60))
        throttle.offer(jpeg.prefix(jpeg.count / 2))
        gate.open(1)
        #expect(await pipelineEventually { delivered.withLock { $0.count } == 1 })
        throttle.offer(jpeg.prefix(jpeg.count * 3 / 4))
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.withLock { $0.count } == 1)
        throttle.stop()
        gate.open(1)
    }
}
