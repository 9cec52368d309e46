import AWIBenchResults
import AsyncWebImage
import Foundation
import AsyncWebImageGIF

/// Decoding every frame of a 100-frame 480×270 GIF animation through
/// `GIFCoder`'s animated frame decoder (block scan, giflib a frame at a
/// time, compositing), against raw giflib in the same process: `DGifSlurp`
/// then the same compositing, each frame copied out. Ratios are on
/// per-thread CPU time.
struct GIFAnimationScenario: Scenario {
    let name = "gif-animation"
    let summary = "GIF animation: all 100 frames decoded and composited vs DGifSlurp + compositing (target ≥ 0.9×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let caseName = "100 frames 480×270"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            let data = try RawGif.synthesize(width: 480, height: 270, frames: 100)
            let coder = GIFCoder()
            let options = ImageDecodingOptions()
            func decodeAll() throws -> Image? {
                guard let decoder = try coder.makeAnimatedFrameDecoder(data, options: options) else {
                    throw BenchmarkFailure("not an animation")
                }
                var last: Image?
                while let frame = try decoder.decodeNextFrame() { last = frame }
                return last
            }
            guard let last = try decodeAll(), try RawGif.decodeAllFrames(data) == last.pixels else {
                throw BenchmarkFailure("GIFCoder and raw giflib disagree on the last frame")
            }
            let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 40, budget: 6)
            let measurement = try await InterleavedMeasurement.run(
                plan: plan, progress: context.progress,
                ours: { try Sample.onThread { blackHole(try decodeAll()) } },
                baseline: { try Sample.onThread { blackHole(try RawGif.decodeAllFrames(data)) } }
            )
            var row = ResultRow(
                scenario: name, caseName: caseName, measurement: measurement,
                unitsPerOperation: 100, unit: "frames/s", basis: .cpu,
                baseline: "DGifSlurp + compositing", target: .ratioAtLeast(0.9)
            )
            row.note = "\(data.count / 1024) KB, disposal 1/2/3, transparency"
            return row
        }]
    }
}
