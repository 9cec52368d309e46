import Foundation
import LoopbackServer
import Testing
import CTurboJPEG
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// The final image never waits for a preview: when the last byte arrives,
/// a preview decode in flight is dropped and the final decode starts.
@Suite("ImageLoader: the final image never waits for a preview", .timeLimit(.minutes(2)))
struct ImageLoaderFinalLatencyTests {
    struct EncodeFailure: Error {}

    /// A progressive JPEG of `width`×`height` encoded by TurboJPEG itself:
    /// gradients plus noise, so every scan carries real detail.
    static func progressiveJPEG(width: Int, height: Int) throws -> Data {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Int(state >> 59)
                let index = (y * width + x) * 3
                rgb[index] = UInt8((x * 255 / width + noise) & 0xFF)
                rgb[index + 1] = UInt8((y * 255 / height + noise) & 0xFF)
                rgb[index + 2] = UInt8(((x + y) * 127 / (width + height) + noise * 2) & 0xFF)
            }
        }
        guard let handle = tjInitCompress() else { throw EncodeFailure() }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = rgb.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue),
                        &buffer, &size, Int32(TJSAMP_420.rawValue), 85, TJFLAG_PROGRESSIVE)
        }
        defer { tjFree(buffer) }
        guard status == 0, let buffer else { throw EncodeFailure() }
        return Data(bytes: buffer, count: Int(size))
    }

    @Test("last byte → final image stays within one full decode while previews are decoded")
    func finalDoesNotWaitForPreview() async throws {
        // Given a large progressive JPEG trickled over about a second, and
        // how long one full decode of it takes here
        let jpeg = try Self.progressiveJPEG(width: 2400, height: 1600)
        var decodeTimes: [Duration] = []
        for _ in 0..<3 {
            let start = ContinuousClock.now
            _ = try ImageCoderRegistry.allFormats.decode(jpeg)
            decodeTimes.append(ContinuousClock.now - start)
        }
        // The slowest of three: the decode under the machine's current load.
        let fullDecode = decodeTimes.max()!
        let harness = try PipelineHarness(progressiveCoders: true)
        let pieces = 40
        harness.server.route("/p.jpg", LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: jpeg,
            trickle: .init(bytesPerPiece: jpeg.count / pieces + 1, interval: .milliseconds(25))))
        let url = harness.server.url("/p.jpg")

        // When it is loaded with previews on, noting when the last byte and the final image arrive
        var lastByte: ContinuousClock.Instant?
        var final: ContinuousClock.Instant?
        var previews = 0
        for try await event in harness.loader.events(url, options: .progressiveLoad) {
            switch event {
            case .progress(let received, _) where received == Int64(jpeg.count): lastByte = ContinuousClock.now
            case .progress: break
            case .preview: previews += 1
            case .finished: final = ContinuousClock.now
            }
        }

        // Then previews were decoded, and the final image came within one
        // full decode of the last byte (plus a margin for the hops and the
        // load of a shared machine), not after a preview decode and then a full one
        let latency = try #require(final) - (try #require(lastByte))
        #expect(previews >= 1)
        let bound = fullDecode * 1.5 + .milliseconds(30 * testTimeScale)
        #expect(latency <= bound, "last byte → final \(latency), one full decode \(fullDecode)")
        print("last byte → final image: \(latency); full decode: \(fullDecode); previews: \(previews)")
    }
}
