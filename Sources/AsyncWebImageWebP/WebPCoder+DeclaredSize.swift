public import Foundation
import CWebP
public import AsyncWebImage

extension WebPCoder {
    /// The canvas size libwebp reads from the headers (`WebPGetFeatures`:
    /// VP8X, VP8 or VP8L; no pixel is decoded).
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes -> PixelSize? in
            guard let features = try? WebPContainer.features(bytes, allowingPartialHeader: true) else { return nil }
            return PixelSize(width: Int(features.width), height: Int(features.height))
        }
    }
}
