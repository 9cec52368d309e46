import CTurboJPEG
import Foundation
import Testing
@testable import AsyncWebImage

@Suite("JPEGScanPruner", .timeLimit(.minutes(1)))
struct JPEGScanPrunerTests {
    /// The pruned stream of a fixture, with the scanner that read it.
    static func prune(_ name: String) throws -> (original: [UInt8], pruned: [UInt8]?) {
        let bytes = [UInt8](try JPEGFixtures.data(name))
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        let pruned = bytes.withUnsafeBytes { JPEGScanPruner.eighthScaleStream($0, scanner: scanner) }
        return (bytes, pruned)
    }

    @Test("with .area, a 1/8 thumbnail of a progressive JPEG is exactly djpeg -scale 1/8 of the whole file", arguments: [
        ("large-progressive", PixelSize(width: 80, height: 60)),
        ("progressive", PixelSize(width: 12, height: 8)),
        ("progressive-444", PixelSize(width: 12, height: 8)),
        ("progressive-422", PixelSize(width: 12, height: 8)),
        ("progressive-gray", PixelSize(width: 12, height: 8)),
        ("many-scans", PixelSize(width: 12, height: 8)),
    ])
    func exact(name: String, size: PixelSize) throws {
        // Given a progressive file and djpeg's 1/8-scale decode of all of it
        let reference = try JPEGFixtures.reference("\(name == "many-scans" ? "progressive" : name)-eighth.pnm")
        // When a thumbnail of exactly 1/8 of its size is decoded (through the
        // pruned stream) with the .area speed option, which decodes at the
        // smallest covering DCT scale and so leaves nothing to resample
        var options = ImageDecodingOptions(thumbnailPixelSize: size)
        options.thumbnailFilter = .area
        let image = try JPEGCoder().decode(try JPEGFixtures.data("\(name).jpg"), options: options)
        // Then it is identical
        #expect(image.size == size)
        if name == "many-scans" {
            // (many-scans is baseline-420's coefficients: compare with its own 1/8 decode instead)
            let full = try Self.decodeEighth([UInt8](try JPEGFixtures.data("baseline-420.jpg")))
            #expect(image.maximumChannelDifference(from: full) == 0)
        } else {
            #expect(image.maximumChannelDifference(from: reference) == 0)
        }
    }

    @Test("drops most of the file, keeping the AC scans that subsampled chroma still reads", arguments: [
        ("large-progressive.jpg", true), ("progressive-444.jpg", false), ("progressive-gray.jpg", false), ("many-scans.jpg", true),
    ])
    func shrinks(name: String, keepsChroma: Bool) throws {
        let (original, pruned) = try Self.prune(name)
        let stream = try #require(pruned)
        #expect(stream.count < original.count * 3 / 4, "\(stream.count) of \(original.count)")
        // The pruned stream decodes at 1/8 to the same pixels as the original
        #expect(try Self.decodeEighth(stream).maximumChannelDifference(from: try Self.decodeEighth(original)) == 0)
        // And it decodes cleanly (no warning: a valid JPEG on its own)
        #expect(try Self.warning(decoding: stream) == nil)
        // AC scans of full-resolution components are gone, replaced by one tiny
        // all-zero scan each; 4:2:0 chroma (read through a 2×2 IDCT at 1/8) keeps its own
        func scans(_ bytes: [UInt8]) throws -> [JPEGMarkerScanner.Scan] {
            var scanner = JPEGMarkerScanner(recordingScans: true)
            try bytes.withUnsafeBytes { try scanner.advance($0) }
            return scanner.scans
        }
        let before = try scans(original).filter { $0.spectralStart > 0 }
        let after = try scans(stream).filter { $0.spectralStart > 0 }
        let replacements = after.filter { $0.range.count < 64 }
        let keptChroma = after.filter { $0.range.count >= 64 && $0.componentIDs != [1] }
        let keptLuma = after.filter { $0.range.count >= 64 && $0.componentIDs == [1] }
        #expect(keptLuma.isEmpty)
        if keepsChroma {
            #expect(keptChroma.count == before.filter { $0.componentIDs != [1] }.count && !keptChroma.isEmpty)
            #expect(replacements.map(\.componentIDs) == [[1]])
        } else {
            #expect(keptChroma.isEmpty)
            #expect(replacements.count == (name.contains("gray") ? 1 : 3))
        }
    }

    @Test("does not apply to baseline, arithmetic or truncated files")
    func notApplicable() throws {
        #expect(try Self.prune("large.jpg").pruned == nil)
        #expect(try Self.prune("baseline-arithmetic.jpg").pruned == nil)
        // Truncated: no EOI, no pruning (the full decode refuses such data anyway)
        let bytes = [UInt8](try JPEGFixtures.data("large-progressive.jpg")).dropLast(100)
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try Array(bytes).withUnsafeBytes { try scanner.advance($0) }
        #expect(Array(bytes).withUnsafeBytes { JPEGScanPruner.eighthScaleStream($0, scanner: scanner) } == nil)
    }

    @Test("the bit writer stuffs a zero after 0xFF and pads with ones")
    func bitWriter() {
        var writer = JPEGScanPruner.BitWriter()
        writer.write(0xFF, bits: 8)
        writer.write(0b101, bits: 3)
        #expect(writer.finish() == [0xFF, 0x00, 0b1011_1111])
    }

    /// TurboJPEG's own 1/8 decode of `bytes`, as RGB or gray.
    static func decodeEighth(_ bytes: [UInt8]) throws -> Image {
        try decode(bytes, scale: .eighth)
    }

    /// TurboJPEG's decode of `bytes` at `scale`, RGB or grey.
    static func decode(_ bytes: [UInt8], scale: JPEGScale) throws -> Image {
        let handle = try TurboJPEGHandle(.decompressor)
        let header = try bytes.withUnsafeBytes { try handle.readHeader($0) }
        let size = scale.apply(to: header.size)
        let format: PixelFormat = header.isGray ? .gray8 : .rgb8
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * format.bytesPerPixel)
        _ = try bytes.withUnsafeBytes { jpeg in
            try pixels.withUnsafeMutableBytes { out in
                try handle.decompress(jpeg, into: out, size: size, pitch: size.width * format.bytesPerPixel, pixelFormat: header.isGray ? TJPF_GRAY : TJPF_RGB)
            }
        }
        return try Image(width: size.width, height: size.height, pixelFormat: format, pixels: pixels)
    }

    /// The warning a full-size decode of `bytes` reports, if any.
    static func warning(decoding bytes: [UInt8]) throws -> String? {
        let handle = try TurboJPEGHandle(.decompressor)
        let header = try bytes.withUnsafeBytes { try handle.readHeader($0) }
        var pixels = [UInt8](repeating: 0, count: header.size.pixelCount * 3)
        return try bytes.withUnsafeBytes { jpeg in
            try pixels.withUnsafeMutableBytes { out in
                try handle.decompress(jpeg, into: out, size: header.size, pitch: header.size.width * 3, pixelFormat: TJPF_RGB)
            }
        }
    }
}
