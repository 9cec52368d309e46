public import Foundation

extension PNGCoder {
    /// Width and height from the IHDR chunk (the chunk walk reads no other
    /// payload and inflates nothing).
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes in (try? PNGChunkScan(bytes))?.size }
    }
}
