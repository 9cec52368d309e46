import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF
@testable import AsyncWebImageWebP

/// The animated encoders' files read back by tools nobody here wrote:
/// `webpmux -info` (frame count, loop count, durations, compression),
/// ImageMagick (`identify` delays and iterations, `convert -coalesce`
/// frames), and by our decoders.
@Suite("Animated encoders: WebP and GIF read back by outside tools", .timeLimit(.minutes(2)))
struct AnimatedEncoderTests {
    let sources: [Image]
    let durations: [Duration] = [100, 80, 120, 40, 60].map { .milliseconds($0) }

    init() throws {
        sources = try (0..<5).map { index in
            let reference = try PAMReference("animation", "source-\(index)")
            return try Image(width: reference.width, height: reference.height, pixelFormat: .rgba8, pixels: reference.rgba)
        }
    }

    @Test("lossless WebP: webpmux lists 5 lossless frames, the durations and loop 3; frames decode to the sources exactly")
    func losslessWebP() throws {
        let data = try AnimatedWebPEncoder(lossless: true).encodeAnimation(sources, durations: durations, loopCount: 3)
        let directory = TemporaryDirectory("awi-anim")
        let file = directory.appending("out.webp")
        try data.write(to: file)

        let info = try runTool("/usr/bin/webpmux", ["-info", file.path])
        #expect(info.contains("Loop Count : 3"))
        #expect(info.contains("Number of frames: 5"))
        let rows = webpmuxFrameRows(info)
        #expect(rows.map(\.duration) == [100, 80, 120, 40, 60])
        #expect(rows.allSatisfy { $0.compression == "lossless" })

        let decoder = try #require(try WebPCoder().makeAnimatedFrameDecoder(data, options: .init()))
        for (index, frame) in try decodeAll(decoder).enumerated() {
            #expect(try PAMReference("animation", "source-\(index)").maximumDifference(from: frame) == 0, "frame \(index)")
        }
    }

    @Test("lossy WebP at quality 0.9: lossy frames in webpmux, ImageMagick's frames within 2 of ours, ours within 80 of the sources (4:2:0 on sharp colour edges)")
    func lossyWebP() throws {
        let data = try AnimatedWebPEncoder(quality: 0.9).encodeAnimation(sources, durations: durations, loopCount: 0)
        let directory = TemporaryDirectory("awi-anim")
        let file = directory.appending("out.webp")
        try data.write(to: file)
        let info = try runTool("/usr/bin/webpmux", ["-info", file.path])
        #expect(info.contains("Loop Count : 0"))
        #expect(webpmuxFrameRows(info).contains { $0.compression == "lossy" })
        #expect(try identifyDelays(file) == [10, 8, 12, 4, 6])

        let frames = try decodeAll(#require(try WebPCoder().makeAnimatedFrameDecoder(data, options: .init())))
        #expect(frames.count == 5)
        let magick = try coalescedFrames(file, count: 5, in: directory)
        for (index, frame) in frames.enumerated() {
            let source = try #require(try PAMReference("animation", "source-\(index)").maximumDifference(from: frame))
            #expect(source <= 80, "frame \(index): \(source) from the source")
            // ImageMagick 6.9 ignores "no blend" (see the fixture script): compare before the transparent frames
            if index < 3 {
                let outside = try #require(magick[index].maximumDifference(from: frame))
                #expect(outside <= 2, "frame \(index): \(outside) from ImageMagick")
            }
        }
    }

    @Test("GIF: ImageMagick reads 5 coalesced frames close to the sources, transparency kept, delays and iterations")
    func gif() throws {
        let data = try AnimatedGIFEncoder().encodeAnimation(sources, durations: durations, loopCount: 3)
        #expect(ImageFormat.detect(data) == .gif)
        let directory = TemporaryDirectory("awi-anim")
        let file = directory.appending("out.gif")
        try data.write(to: file)

        #expect(try identifyDelays(file) == [10, 8, 12, 4, 6])
        let verbose = try runTool("/usr/bin/identify", ["-verbose", file.path + "[0]"])
        #expect(verbose.contains("Iterations: 3"))
        let frames = try coalescedFrames(file, count: 5, in: directory)
        for (index, frame) in frames.enumerated() {
            let source = sources[index]
            var worst = 0, total = 0, opaque = 0
            for y in 0..<source.height {
                for x in 0..<source.width {
                    let want = try #require(source.pixel(x: x, y: y)), got = Array(frame.rgba[((y * frame.width + x) * 4)..<((y * frame.width + x) * 4 + 4)])
                    // One-bit transparency: under half opaque becomes transparent
                    #expect((got[3] == 0) == (want[3] < 128), "alpha at \(x),\(y) of frame \(index)")
                    guard want[3] == 255 else { continue }
                    for channel in 0..<3 {
                        let difference = abs(Int(got[channel]) - Int(want[channel]))
                        worst = max(worst, difference)
                        total += difference
                    }
                    opaque += 3
                }
            }
            // 256 colours per frame, dithered: small on average, bounded everywhere
            #expect(worst <= 40, "frame \(index): worst \(worst)")
            #expect(opaque == 0 || Double(total) / Double(opaque) <= 3, "frame \(index): mean \(Double(total) / Double(max(opaque, 1)))")
        }
    }

    @Test("a GIF played once has no loop extension; forever writes 0")
    func gifLoopExtension() throws {
        let once = try AnimatedGIFEncoder().encodeAnimation(Array(sources[0..<2]), durations: Array(durations[0..<2]), loopCount: 1)
        let forever = try AnimatedGIFEncoder().encodeAnimation(Array(sources[0..<2]), durations: Array(durations[0..<2]), loopCount: 0)
        let netscape = Data("NETSCAPE2.0".utf8)
        #expect(once.range(of: netscape) == nil)
        let at = try #require(forever.range(of: netscape))
        #expect(Array(forever[at.upperBound..<(at.upperBound + 4)]) == [3, 1, 0, 0])
    }

    @Test("an APNG re-encoded as animated WebP through the frame decoder keeps frames, delays and plays")
    func reencodeAPNG() throws {
        let apng = try #require(try PNGCoder().makeAnimatedFrameDecoder(try fixture("animation", "ops.png"), options: .init()))
        let webp = try AnimatedWebPEncoder(lossless: true).encodeAnimation(from: apng)
        let decoder = try #require(try WebPCoder().makeAnimatedFrameDecoder(webp, options: .init()))
        #expect(decoder.info.frameDurations == [100, 200, 300, 400, 500].map { .milliseconds($0) })
        #expect(decoder.info.loopCount == 4)
        for (index, frame) in try decodeAll(decoder).enumerated() {
            #expect(try PAMReference("animation", "ops-apng-\(index)").maximumDifference(from: frame) == 0, "frame \(index)")
        }
    }

    @Test("no frames, frames of different sizes and mismatched durations are typed errors")
    func badInput() throws {
        let small = try Image(width: 2, height: 2, pixelFormat: .rgb8, pixels: [UInt8](repeating: 9, count: 12))
        let encoders: [any AnimatedImageEncoding] = [AnimatedWebPEncoder(), AnimatedGIFEncoder()]
        for encoder in encoders {
            let format = encoder.animationFormat
            #expect(throws: ImageError.encodingFailed(format, "an animation needs a frame")) {
                try encoder.encodeAnimation([], durations: [], loopCount: 0)
            }
            #expect(throws: ImageError.encodingFailed(format, "a frame of 2×2 in an animation of 40×30")) {
                try encoder.encodeAnimation([sources[0], small], durations: [.zero, .zero], loopCount: 0)
            }
            #expect(throws: ImageError.encodingFailed(format, "1 frames with 2 durations")) {
                try encoder.encodeAnimation([small], durations: [.zero, .zero], loopCount: 0)
            }
        }
    }

    // MARK: - outside tools

    /// ImageMagick's delays (hundredths) of every frame of `file`.
    private func identifyDelays(_ file: URL) throws -> [Int] {
        try runTool("/usr/bin/identify", ["-format", "%T ", file.path]).split(separator: " ").compactMap { Int($0) }
    }

    /// ImageMagick's `-coalesce` of `file`, as RGBA PAM references.
    private func coalescedFrames(_ file: URL, count: Int, in directory: TemporaryDirectory) throws -> [PAMReference] {
        let pattern = directory.appending("frame-%d.pam").path
        _ = try runTool("/usr/bin/convert", [file.path, "-coalesce", "-alpha", "on", pattern])
        return try (0..<count).map { try PAMReference(path: directory.appending("frame-\($0).pam").path) }
    }

    /// The frame rows of `webpmux -info`: duration and compression.
    private func webpmuxFrameRows(_ info: String) -> [(duration: Int, compression: String)] {
        info.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 11, fields[0].hasSuffix(":"), Int(fields[0].dropLast()) != nil, let duration = Int(fields[6]) else { return nil }
            return (duration, String(fields[10]))
        }
    }
}

/// Runs `tool` with `arguments` (bounded to 60 s) and returns its standard
/// output; throws when it exits non-zero.
func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(tool) \(arguments) exited \(process.terminationStatus)")
    return String(decoding: output, as: UTF8.self)
}
