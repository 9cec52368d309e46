public import Foundation
public import AsyncWebImage

extension GIFCoder {
    /// The logical screen's size (bytes 6–9, little-endian), the canvas
    /// every frame is decoded onto.
    public func declaredSize(of data: Data) -> PixelSize? {
        guard data.count >= 10 else { return nil }
        let start = data.startIndex
        let width = Int(data[start + 6]) | Int(data[start + 7]) << 8
        let height = Int(data[start + 8]) | Int(data[start + 9]) << 8
        return PixelSize(width: width, height: height)
    }
}
