import CTurboJPEG
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("JPEGReducedScaleTranscoder", .timeLimit(.minutes(3)))
struct JPEGReducedScaleTranscoderTests {
    /// The baseline stream of a progressive file, or `nil` when the transcoder declines.
    static func transcode(_ bytes: [UInt8], mode: JPEGReducedScaleTranscoder.Mode = .eighth) throws -> [UInt8]? {
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        let frame = try #require(scanner.frame)
        return bytes.withUnsafeBytes { JPEGReducedScaleTranscoder.baselineStream($0, frame: frame, mode: mode) }
    }

    /// Whether `bytes` have a baseline frame (SOF0) and exactly one scan.
    static func isSingleScanBaseline(_ bytes: [UInt8]) throws -> Bool {
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        return scanner.frame?.marker == 0xC0 && scanner.completedScans == 1 && scanner.sawEndOfImage
    }

    @Test("the baseline stream decodes at 1/8 to djpeg's 1/8 decode of the whole progressive file", arguments: [
        "large-progressive", "progressive", "progressive-444", "progressive-422", "progressive-gray",
    ])
    func exact(name: String) throws {
        // Given a progressive file and djpeg's 1/8-scale decode of all of it
        let original = [UInt8](try JPEGFixtures.data("\(name).jpg"))
        let reference = try JPEGFixtures.reference("\(name)-eighth.pnm")
        // When it is transcoded
        let stream = try #require(try Self.transcode(original))
        // Then the result is a one-scan baseline file, decoding cleanly at 1/8 to the same pixels
        #expect(try Self.isSingleScanBaseline(stream))
        #expect(try JPEGScanPrunerTests.warning(decoding: stream) == nil)
        #expect(try JPEGScanPrunerTests.decodeEighth(stream).maximumChannelDifference(from: reference) == 0)
        // And a thumbnail through the coder (which takes this path at 1/8:
        // with the .area speed option, at exactly 1/8 of the size) is the same image
        var options = ImageDecodingOptions(thumbnailPixelSize: reference.size)
        options.thumbnailFilter = .area
        let image = try JPEGCoder().decode(Data(original), options: options)
        #expect(image.size == reference.size && image.maximumChannelDifference(from: reference) == 0)
    }

    @Test("restart intervals, every subsampling, successive approximation: same pixels as TurboJPEG's 1/8 decode of the original",
          arguments: ["2x2", "2x1", "1x2", "1x1", "gray"], [0, 1, 5])
    func differential(sampling: String, restart: Int) throws {
        guard let cjpeg = Self.tool("cjpeg") else { return }
        // Given a noisy picture (every coefficient busy) made progressive by libjpeg's cjpeg
        let (width, height) = (203, 141)
        var random = SystemRandomNumberGenerator()
        var ppm = Array("P6\n\(width) \(height)\n255\n".utf8)
        for y in 0..<height {
            for x in 0..<width {
                let base = (x * 3 + y * 2) % 256
                ppm += [UInt8((base + Int(random.next() % 64)) % 256), UInt8((255 - base) % 256), UInt8((x ^ y) & 0xFF)]
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-transcoder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.ppm")
        try Data(ppm).write(to: input)
        var arguments = ["-quality", "92", "-progressive"]
        arguments += sampling == "gray" ? ["-grayscale"] : ["-sample", sampling]
        if restart > 0 { arguments += ["-restart", "\(restart)B"] }
        let original = try Self.run(cjpeg, arguments + [input.path])
        // When it is transcoded
        let stream = try #require(try Self.transcode(original), "\(sampling) restart \(restart)")
        // Then the stream is baseline and decodes at 1/8 exactly as the original does
        #expect(try Self.isSingleScanBaseline(stream))
        let expected = try JPEGScanPrunerTests.decodeEighth(original)
        #expect(try JPEGScanPrunerTests.decodeEighth(stream).maximumChannelDifference(from: expected) == 0, "\(sampling) restart \(restart)")
    }

    @Test("at 1/4, a stream from the lowest band, made without the upper scans, decodes close to djpeg's 1/4 decode of the whole file")
    func quarter() throws {
        let djpeg = try #require(Self.tool("djpeg"), "djpeg missing (apt-get install libjpeg-turbo-progs)")
        // Given a progressive 4:2:0 file in libjpeg's standard progression, and djpeg's 1/4 decode of all of it
        let original = [UInt8](try JPEGFixtures.data("large-progressive.jpg"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-quarter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("in.jpg")
        try Data(original).write(to: file)
        let reference = try JPEGFixtures.pnm(Self.run(djpeg, ["-scale", "1/4", "-ppm", file.path]))
        // When it is transcoded at 1/4
        let stream = try #require(try Self.transcode(original, mode: .quarter))
        // Then the stream is one baseline scan, made without decoding the
        // luma's upper band and its two refinements
        #expect(try Self.isSingleScanBaseline(stream))
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try original.withUnsafeBytes { try scanner.advance($0) }
        var state = JPEGReducedScaleTranscoder.State(frame: try #require(scanner.frame), mode: .quarter)
        #expect(original.withUnsafeBytes { state.read($0) } && state.isComplete)
        #expect(state.skippedScans == 3, "\(state.skippedScans) of \(scanner.completedScans) scans skipped")
        // And its 1/4 decode is the reference's size, within a few levels of it on average, but not identical
        let image = try JPEGScanPrunerTests.decode(stream, scale: JPEGReducedScaleTranscoder.Mode.quarter.scale)
        #expect(image.size == reference.size)
        let difference = try #require(AVIFFixture.meanChannelDifference(image, reference))
        #expect(difference > 0 && difference < 3, "mean difference \(difference)")
        // And a file it would skip nothing of (a baseline one) is declined
        #expect(try Self.transcode([UInt8](try JPEGFixtures.data("large.jpg")), mode: .quarter) == nil)
    }

    @Test("declines what it cannot reproduce: baseline, arithmetic, truncated or damaged scans, coefficients left unrefined")
    func declines() throws {
        #expect(try Self.transcode([UInt8](try JPEGFixtures.data("large.jpg"))) == nil)
        #expect(try Self.transcode([UInt8](try JPEGFixtures.data("baseline-arithmetic.jpg"))) == nil)
        let progressive = [UInt8](try JPEGFixtures.data("large-progressive.jpg"))
        // No EOI.
        #expect(try Self.transcode(Array(progressive.dropLast(2))) == nil)
        // The last scan removed: its coefficients never reach full precision
        // (libjpeg would smooth blocks), so the transcoder declines.
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try progressive.withUnsafeBytes { try scanner.advance($0) }
        let last = try #require(scanner.scans.last)
        let shortened = Array(progressive[..<last.range.lowerBound]) + [0xFF, 0xD9]
        #expect(try Self.transcode(shortened) == nil)
        // Garbage in a chroma AC scan's data: unknown codes or a length mismatch.
        let chroma = try #require(scanner.scans.first { $0.spectralStart > 0 && $0.componentIDs != [1] && $0.range.count > 200 })
        var damaged = progressive
        for offset in stride(from: chroma.range.lowerBound + 40, to: chroma.range.upperBound - 20, by: 3) where damaged[offset] != 0xFF {
            damaged[offset] = 0xFE
        }
        #expect(try Self.transcode(damaged) == nil)
    }

    @Test("a progressive thumbnail at 1/8 holds a fraction of the whole-image coefficient arrays")
    func memory() throws {
        // Given the largest progressive fixture (640×480, 4:2:0)
        let original = [UInt8](try JPEGFixtures.data("large-progressive.jpg"))
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try original.withUnsafeBytes { try scanner.advance($0) }
        let frame = try #require(scanner.frame)
        var state = JPEGReducedScaleTranscoder.State(frame: frame)
        // Then luma keeps 2 bytes a block (its DC), chroma 25 coefficients and a mask: 58 bytes, against libjpeg's 128
        let held = state.values.count * 2 + state.nonzero.count * 8
        #expect(held * 3 < frame.blockCount * 128, "\(held) bytes for \(frame.blockCount) blocks")
        #expect(state.components.map(\.slotCount) == [1, 25, 25])
        #expect(original.withUnsafeBytes { state.read($0) } && state.isComplete)
    }

    static func tool(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }
}
