import Foundation
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// Header sizes read without decoding, and the decode scheduling that uses
/// them: a huge image waits in the CPU limiter's heavy lane, a small one
/// does not wait behind it.
@Suite("Declared sizes and the heavy decode lane", .timeLimit(.minutes(1)))
struct DeclaredSizeTests {
    @Test("every built-in decoder reads the size its full decode produces", arguments: ["jpg", "png", "gif", "webp", "avif"])
    func declaredMatchesDecoded(ext: String) throws {
        let data = try fixture("formats", "sample.\(ext)")
        let declared = try #require(ImageCoderRegistry.allFormats.declaredSize(of: data))
        let decoded = try ImageCoderRegistry.allFormats.decode(data, options: .init())
        #expect(declared == decoded.size)
    }

    @Test("truncated or foreign headers give nil, never a crash", arguments: ["jpg", "png", "webp", "avif"])
    func truncatedHeader(ext: String) throws {
        let data = try fixture("formats", "sample.\(ext)")
        #expect(ImageCoderRegistry.allFormats.declaredSize(of: data.prefix(9)) == nil)
        #expect(ImageCoderRegistry.allFormats.declaredSize(of: Data(repeating: 0x41, count: 64)) == nil)
    }

    @Test("a decode declaring more than heavyPixelCount waits for the heavy lane; a small one passes")
    func heavyDecodeWaitsInItsLane() async throws {
        // Given a limiter of 2 permits that counts 10,000 pixels as heavy,
        // its one heavy permit held by other work
        let limiter = ConcurrencyLimiter(limit: 2, heavyPixelCount: 10_000)
        let small = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 64), as: .png)
        let large = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 128), as: .png)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task { try await limiter.withPermit(heavy: true) { for await _ in gate { break } } }
        #expect(await pipelineEventually { limiter.availableHeavyPermits == 0 })

        // When the large image and then the small one are decoded
        let largeDone = Locked(false)
        let largeDecode = Task {
            let image = try await ImageCoderRegistry.allFormats.decode(large, options: .init(), limiter: limiter)
            largeDone.withLock { $0 = true }
            return image
        }
        let smallImage = try await ImageCoderRegistry.allFormats.decode(small, options: .init(), limiter: limiter)

        // Then the small one is done while the large one still waits (with
        // no permit taken: heavy bodies hold none), and the large one
        // finishes once the lane frees
        #expect(smallImage.size == PixelSize(width: 64, height: 64))
        #expect(!largeDone.withLock { $0 })
        #expect(limiter.availablePermits == 2)
        #expect(limiter.availableHeavyPermits == 0)
        open.yield()
        try await holder.value
        #expect(try await largeDecode.value.size == PixelSize(width: 128, height: 128))
    }

    @Test("a heavy image its header or structure already breaks a limit of is refused at once, not after the heavy lane")
    func refusedBeforeTheHeavyLane() async throws {
        // Given a limiter that counts 10,000 pixels as heavy, its one heavy
        // permit held by other work, and a cache using it
        let limiter = ConcurrencyLimiter(limit: 2, heavyPixelCount: 10_000)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task { try await limiter.withPermit(heavy: true) { for await _ in gate { break } } }
        #expect(await pipelineEventually { limiter.availableHeavyPermits == 0 })

        // When a 200×200 JPEG of 101 scans and a 128² PNG over a 15,000-pixel limit are decoded
        let manyScans = ManyScanJPEG.make(width: 200, height: 200, scans: 101)
        let large = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 128), as: .png)
        let outcomes = Locked([String: ImageError]())
        let attempts = Task {
            for (name, data, options) in [
                ("scans", manyScans, ImageDecodingOptions()), ("pixels", large, ImageDecodingOptions(maxPixelCount: 15_000)),
            ] {
                do { _ = try await ImageCoderRegistry.allFormats.decode(data, options: options, limiter: limiter) } catch let error as ImageError {
                    outcomes.withLock { $0[name] = error }
                }
            }
        }
        let refusedAtOnce = await pipelineEventually(attempts: 3_000) { outcomes.withLock { $0.count } == 2 }
        open.yield()
        try await holder.value
        try await attempts.value

        // Then both were refused with their limit while the lane was still held
        #expect(refusedAtOnce)
        #expect(outcomes.withLock { $0["scans"] } == .tooLarge(.scans, limit: 100, actual: 101))
        #expect(outcomes.withLock { $0["pixels"] } == .tooLarge(.pixels, limit: 15_000, actual: 16_384))
        #expect(limiter.availableHeavyPermits == 1)
    }
}
