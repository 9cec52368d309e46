public import Foundation
import CAvif
public import AsyncWebImage

extension AVIFCoder {
    /// The primary image's `ispe` size, from libavif's parse of the boxes
    /// (no AV1 data is decoded).
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes -> PixelSize? in
            guard let decoder = try? AVIFDecoderHandle(decoding: bytes, maxThreads: 1),
                  (try? decoder.parse()) != nil, let image = try? decoder.image
            else { return nil }
            return PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        }
    }
}
