import AWIBenchResults
import AsyncWebImage
import Foundation
import AsyncWebImageWebP

/// Every frame of a 100-frame animated WebP through `WebPCoder`'s frame
/// decoder against a raw `WebPAnimDecoder` loop copying each canvas into a
/// fresh buffer, in the same process, interleaved.
///
/// The file is made at the start of the run by raw libwebpmux
/// (`WebPAnimEncoder`, lossy q75): a gradient with a block and a bar that
/// move every frame, so each frame has a changed sub-rectangle to blend.
struct AnimatedWebPScenario: Scenario {
    let name = "animated-webp"
    let summary = "WebPCoder frame decoder, all 100 frames of an animated WebP vs a raw WebPAnimDecoder loop (target ≥ 0.9×)"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        for (width, height) in [(480, 270), (1280, 720)] {
            let caseName = "100 frames \(width)×\(height)"
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(width: width, height: height, caseName: caseName, context: context)
            })
        }
        return rows
    }

    private func measure(width: Int, height: Int, caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        let frameCount = 100
        let webp = try RawWebPAnimation.encode(width: width, height: height, frameCount: frameCount, duration: 40, quality: 75) { index, pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    pixels[offset] = UInt8(truncatingIfNeeded: x * 255 / width)
                    pixels[offset + 1] = UInt8(truncatingIfNeeded: y * 255 / height)
                    pixels[offset + 2] = 128
                    pixels[offset + 3] = 255
                    let blockX = (index * 7) % max(1, width - 64), barY = (index * 3) % max(1, height - 16)
                    if x >= blockX && x < blockX + 64 && y >= height / 3 && y < height / 3 + 64 {
                        pixels[offset] = 250; pixels[offset + 1] = 40; pixels[offset + 2] = 40
                    }
                    if y >= barY && y < barY + 16 { pixels[offset + 2] = 255 }
                }
            }
        }
        let coder = WebPCoder()
        func decodeOurs() throws -> Image? {
            guard let decoder = try coder.makeAnimatedFrameDecoder(webp, options: .init()) else {
                throw BenchmarkFailure("no frame decoder for the animated WebP")
            }
            var last: Image?
            while let frame = try decoder.decodeNextFrame() { last = frame }
            return last
        }
        guard let ours = try decodeOurs(), try RawWebPAnimation.decodeAll(webp) == ours.pixels else {
            throw BenchmarkFailure("WebPCoder and raw WebPAnimDecoder disagree on \(caseName)")
        }
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 30, budget: width > 1000 ? 12 : 6)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try decodeOurs()) } },
            baseline: { try Sample.onThread { blackHole(try RawWebPAnimation.decodeAll(webp)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(frameCount), unit: "frames/s", basis: .cpu,
            baseline: "WebPAnimDecoder loop", target: .ratioAtLeast(0.9)
        )
        if let wallOurs = measurement.ours.median(.wall), let wallBase = measurement.baseline.median(.wall) {
            row.note = "\(webp.count / 1024) KB lossy q75; wall-time ratio \(Format.ratio(wallBase / wallOurs))"
        }
        return row
    }
}
