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
}
