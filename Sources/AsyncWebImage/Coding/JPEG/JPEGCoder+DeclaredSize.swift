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
