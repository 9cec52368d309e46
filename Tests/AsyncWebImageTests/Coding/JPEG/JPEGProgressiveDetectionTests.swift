import AsyncWebImage
import CTurboJPEG
import Foundation
import Testing

/// `JPEGCoder.isProgressive`, the marker walk the decoder and the
/// benchmark's corpus both ask: a real photo with megabytes of metadata
/// before its frame header once counted as baseline (a scan of the first
/// 1 MiB).
@Suite(.timeLimit(.minutes(1)))
struct JPEGProgressiveDetectionTests {
    /// A 64×48 JPEG from TurboJPEG itself, baseline or progressive.
    private static func jpeg(progressive: Bool) throws -> [UInt8] {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        let (width, height) = (64, 48)
        let rgb = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &buffer, &size,
                Int32(TJSAMP_420.rawValue), 85, progressive ? TJFLAG_PROGRESSIVE : 0
            )
        }
        defer { tjFree(buffer) }
        try #require(status == 0)
        return Array(UnsafeBufferPointer(start: try #require(buffer), count: Int(size)))
    }

    /// `jpeg` with `total` bytes of APP1 segments (each at most 65,535
    /// bytes long, as the format allows) spliced in after SOI.
    private static func withMetadata(_ jpeg: [UInt8], total: Int) -> [UInt8] {
        var metadata: [UInt8] = []
        var remaining = total
        while remaining > 0 {
            let payload = min(remaining, 65_533)
            metadata += [0xFF, 0xE1, UInt8((payload + 2) >> 8), UInt8((payload + 2) & 0xFF)]
            metadata += [UInt8](repeating: 0x20, count: payload)
            remaining -= payload
        }
        return Array(jpeg[0..<2]) + metadata + Array(jpeg[2...])
    }

    /// The width libjpeg reads from the file's header, `nil` when it cannot.
    private static func turboJPEGWidth(_ jpeg: [UInt8]) -> Int? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var (width, height, subsampling, colourspace): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        let status = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colourspace)
        }
        return status == 0 ? Int(width) : nil
    }

    @Test("a progressive JPEG with 7.3 MB of metadata before its SOF is progressive, its baseline twin is not")
    func metadataBeforeFrame() throws {
        // Given: a progressive and a baseline file, each behind 7.3 MB of APP1 segments
        let progressive = Self.withMetadata(try Self.jpeg(progressive: true), total: 7_300_000)
        let baseline = Self.withMetadata(try Self.jpeg(progressive: false), total: 7_300_000)
        // Then: libjpeg reads both files (they are sound) and the classes follow their SOF markers
        #expect(Self.turboJPEGWidth(progressive) == 64)
        #expect(Self.turboJPEGWidth(baseline) == 64)
        #expect(JPEGCoder.isProgressive(Data(progressive)))
        #expect(!JPEGCoder.isProgressive(Data(baseline)))
    }

    @Test("just over 1 MiB of metadata, files without metadata, and broken ones")
    func plainAndBroken() throws {
        let progressive = try Self.jpeg(progressive: true)
        // The old 1 MiB prefix ended inside this metadata.
        #expect(JPEGCoder.isProgressive(Data(Self.withMetadata(progressive, total: 1 << 20 + 1))))
        #expect(JPEGCoder.isProgressive(Data(progressive)))
        #expect(!JPEGCoder.isProgressive(Data(try Self.jpeg(progressive: false))))
        // Cut inside the metadata: no frame header reached.
        let cut = Self.withMetadata(progressive, total: 100_000).prefix(70_000)
        #expect(!JPEGCoder.isProgressive(Data(cut)))
        #expect(!JPEGCoder.isProgressive(Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01])))
    }
}
