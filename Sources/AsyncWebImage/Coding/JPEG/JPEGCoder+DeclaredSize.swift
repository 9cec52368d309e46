public import Foundation

extension JPEGCoder {
    /// The frame size of the first SOF marker, found by the marker walk
    /// that stops before the first scan's entropy data (no Huffman decoding).
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes -> PixelSize? in
            var scanner = JPEGMarkerScanner()
            guard (try? scanner.advance(bytes, stopAtFirstScan: true)) != nil else { return nil }
            return scanner.frame?.size
        }
    }

    /// Whether the first SOF marker declares a progressive frame, by the same
    /// marker walk as ``declaredSize(of:)``: segment by segment on their
    /// lengths up to the frame header, however many megabytes of metadata
    /// precede it. `false` when no frame header comes before the first scan
    /// or the end of the data.
    ///
    /// SPI for the benchmark (`import AsyncWebImage`): its
    /// corpus classes files as the decoder will see them, with the decoder's
    /// own walk rather than a second one.
    package static func isProgressive(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes -> Bool in
            var scanner = JPEGMarkerScanner()
            _ = try? scanner.advance(bytes, stopAtFirstScan: true)
            return scanner.frame?.isProgressive ?? false
        }
    }

    /// The scan limits (``ImageDecodingOptions/maxScanCount``,
    /// ``ImageDecodingOptions/maxScanBlockCount``) by the same marker walk
    /// the decode makes (a `memchr` through the entropy-coded data). The
    /// scans counted before a walk that fails count too (there are at least
    /// that many); the failure itself is left to the decode to judge.
    public func checkStructureLimits(of data: Data, options: ImageDecodingOptions) throws {
        let (scans, blocks) = data.withUnsafeBytes { bytes -> (Int, Int) in
            var scanner = JPEGMarkerScanner()
            _ = try? scanner.advance(bytes)
            return (scanner.completedScans, scanner.completedScanBlocks)
        }
        try options.checkScanLimits(scans: scans, blocks: blocks)
    }
}
