public import Foundation
public import AsyncWebImage

extension HEIFCoder {
    /// The primary image's `ispe` size, read by the package's own box
    /// reader (no libheif context, no HEVC data decoded). A rotated image
    /// is reported as coded; its pixel count is the same.
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes -> PixelSize? in
            guard let table = try? HEIFItemTable(reading: bytes), let id = table.primaryID else { return nil }
            return table.items[id]?.declaredSize
        }
    }

    /// Refuses, before the decode waits for a slot, a derived primary
    /// image (grid, overlay, `iden`) whose description libheif would trust
    /// and this package does not (see ``HEIFCoder``).
    public func checkStructureLimits(of data: Data, options: ImageDecodingOptions) throws {
        try data.withUnsafeBytes { bytes in
            try HEIFItemTable(reading: bytes).checkDerivedImage(maxPixelCount: options.maxPixelCount)
        }
    }
}
