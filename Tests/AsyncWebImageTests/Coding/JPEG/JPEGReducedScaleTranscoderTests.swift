import CTurboJPEG
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("JPEGReducedScaleTranscoder", .timeLimit(.minutes(3)))
struct JPEGReducedScaleTranscoderTests {
    /// The baseline stream of a progressive file, or `nil` when the transcoder declines.
    static func transcode(_ bytes: [UInt8]) throws -> [UInt8]? {
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        let frame = try #require(scanner.frame)
        return bytes.withUnsafeBytes { JPEGReducedScaleTranscoder.baselineStream($0, frame: frame) }
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
