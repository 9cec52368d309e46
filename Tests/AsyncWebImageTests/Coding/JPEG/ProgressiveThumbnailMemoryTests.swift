import AWITestSupport
import CTurboJPEG
import Foundation
import Testing
@testable import AsyncWebImage

/// A 256 px thumbnail of a 17.9-megapixel progressive JPEG, the size of the
/// photo whose whole-image coefficient arrays (70 MiB) once made it the one
/// class that did not thumbnail in a few MiB: it takes the 1/8 route
/// (decoded at ≥ 2× the target), equals djpeg's `-scale 1/8` decode there,
/// and grows a fresh process's peak RSS by at most 16 MiB.
@Suite(
    "Progressive JPEG thumbnail memory", .timeLimit(.minutes(3)),
    .disabled(if: sanitizerReplacesMalloc, "a sanitizer's allocator and shadow memory make resident-set figures meaningless")
)
struct ProgressiveThumbnailMemoryTests {
    private static let mebibyte = 1 << 20

    /// A 4896×3664 progressive 4:2:0 JPEG from TurboJPEG, of a pattern with
    /// detail at every scale (so its AC scans are not empty), in a new folder.
    private static func largeProgressiveFile() throws -> URL {
        let (width, height) = (4896, 3664)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { pixels in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let noise = Int(truncatingIfNeeded: state >> 59)
                    let at = (y * width + x) * 3
                    pixels[at] = UInt8(truncatingIfNeeded: x / 19 + noise)
                    pixels[at + 1] = UInt8(truncatingIfNeeded: y / 14 + ((x ^ y) & 0x1F))
                    pixels[at + 2] = UInt8(truncatingIfNeeded: (x + y) / 33 + noise * 3)
                }
            }
        }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &buffer, &size,
                Int32(TJSAMP_420.rawValue), 90, TJFLAG_PROGRESSIVE
            )
        }
        defer { tjFree(buffer) }
        try #require(status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-progressive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("17.9mp-progressive.jpg")
        try Data(bytes: try #require(buffer), count: Int(size)).write(to: file)
        return file
    }

    /// Runs `awi-allocator-probe thumbnail-rss` (a fresh process: thumbnails `warmup`,
    /// resets its peak, thumbnails `file` once) and returns the growth of its
    /// peak resident set over the resident set before the second thumbnail.
    private static func peakGrowth(_ arguments: [String]) throws -> Int {
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let probe = binaries.appendingPathComponent("awi-allocator-probe")
        try #require(FileManager.default.isExecutableFile(atPath: probe.path), "missing \(probe.path)")
        let output = try JPEGReducedScaleTranscoderTests.run(probe.path, ["thumbnail-rss"] + arguments)
        let words = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        try #require(words.count == 4 && words[0] == "rss" && words[2] == "hwm", "child said: \(words)")
        return try #require(Int(words[3])) - (try #require(Int(words[1])))
    }

    @Test("a 256 px thumbnail of a 17.9 MP progressive JPEG: the 1/8 route, djpeg's pixels, at most 16 MiB of peak growth")
    func largeProgressiveThumbnail() throws {
        let djpeg = try #require(JPEGReducedScaleTranscoderTests.tool("djpeg"), "djpeg missing (apt-get install libjpeg-turbo-progs)")
        // Given a 17.9 MP progressive file and djpeg's 1/8-scale decode of it
        let file = try Self.largeProgressiveFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let data = try Data(contentsOf: file)
        let reference = try JPEGFixtures.pnm(JPEGReducedScaleTranscoderTests.run(djpeg, ["-scale", "1/8", "-ppm", file.path]))
        #expect(reference.size == PixelSize(width: 612, height: 458))
        // Then the default 256 px thumbnail decodes it at 1/8 (612 px ≥ 2 × 256) ...
        let thumbnail = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        #expect(thumbnail.thumbnailReductionLabel(of: data) == "DCT 1/8")
        // ... where the coder's decode is djpeg's, pixel for pixel (.area at exactly 1/8 stops there)
        var exact = ImageDecodingOptions(thumbnailPixelSize: reference.size)
        exact.thumbnailFilter = .area
        let decoded = try JPEGCoder().decode(data, options: exact)
        #expect(decoded.size == reference.size)
        #expect(decoded.maximumChannelDifference(from: reference) == 0)
        // And in a fresh process the thumbnail grows the peak RSS by at most
        // 16 MiB, where a full-size decode and resample of the same file
        // (the measurement's control) grows it by more than 64 MiB.
        let warmup = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
            .appendingPathComponent("jpeg/large-progressive.jpg").path
        let growth = try Self.peakGrowth(["256", warmup, file.path])
        #expect(growth <= 16 * Self.mebibyte, "peak growth \(growth) bytes")
        let control = try Self.peakGrowth(["256", warmup, file.path, "full"])
        #expect(control > 64 * Self.mebibyte, "full-size control grew by \(control) bytes")
    }
}
