import CSpng
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("PNGRowDecoder", .timeLimit(.minutes(1)))
struct PNGRowDecoderTests {
    /// Decodes `data` row by row into a fresh zeroed buffer.
    private func decode(_ data: Data, tolerating: Bool) throws -> (PNGRowDecoder.Progress, [UInt8]) {
        try data.withUnsafeBytes { bytes in
            let context = try SpngContext(decoding: bytes)
            let plan = try PNGDecodePlan(ihdr: context.header(), hasTransparencyChunk: context.hasTransparencyChunk())
            var pixels = [UInt8](repeating: 0, count: plan.rowBytes * plan.height)
            guard try PNGRowDecoder.start(context, plan: plan, toleratingTruncation: tolerating) else {
                return (PNGRowDecoder.Progress(), pixels)
            }
            let progress = try pixels.withUnsafeMutableBytes {
                try PNGRowDecoder.decodeRows(context, plan: plan, into: $0, toleratingTruncation: tolerating)
            }
            return (progress, pixels)
        }
    }

    @Test("decodes every row of every pass of a whole interlaced file")
    func whole() throws {
        // Given the 37×23 Adam7 RGBA16 fixture: pass heights 3+3+3+6+6+12+11 = 44 rows
        let data = try PNGFixture.data("rgba16-interlaced")
        let (progress, pixels) = try decode(data, tolerating: false)
        #expect(progress == PNGRowDecoder.Progress(rows: 44, completedPasses: 7, isComplete: true))
        let full = try PNGCoder().decode(PNGFixture.data("rgba16"), options: .init())
        #expect(pixels == full.pixels)
    }

    @Test("stops cleanly where truncated data ends, passes completed so far")
    func truncated() throws {
        let data = try PNGFixture.data("progressive-interlaced")
        var last = PNGRowDecoder.Progress()
        for cut in [600, 1200, 2500, 5000, 9000] {
            let (progress, _) = try decode(data.prefix(cut), tolerating: true)
            #expect(!progress.isComplete)
            #expect(progress.rows >= last.rows && progress.completedPasses >= last.completedPasses)
            last = progress
        }
        #expect(last.completedPasses >= 5)
        // Without tolerance, truncation is an error
        #expect(throws: ImageError.self) { try decode(data.prefix(5000), tolerating: false) }
    }
}
