package import Foundation

extension Image {
    /// This image resampled to `size` with the library's own resampler.
    ///
    /// SPI for the benchmark (`import AsyncWebImage`): its
    /// "full decode then resize" baseline must resize exactly as the
    /// thumbnail path it is compared with does. Not public API; the public
    /// way to resize is a transformer.
    package func resampled(
        to size: PixelSize, filter: ImageTransformers.Resize.Filter = .lanczos3,
        light: ImageTransformers.Resize.Light = .encoded
    ) -> Image {
        ImageResampler.resample(self, to: size, filter: filter, light: light)
    }
}

extension ImageDecodingOptions {
    /// How a thumbnail of `data` is reduced before its final filter, as a
    /// label ("DCT 2/8", "box ÷3", "direct"): the per-scale breakdown of
    /// `awi-bench --scenario thumbnail-quality`.
    ///
    /// SPI for the benchmark (`import AsyncWebImage`); JPEG and PNG only.
    package func thumbnailReductionLabel(of data: Data) -> String? {
        guard thumbnailPixelSize != nil || scaleDownLargeImages else { return nil }
        switch ImageFormat.detect(data) {
        case .jpeg:
            let frame = data.withUnsafeBytes { bytes -> (PixelSize, Image.Orientation)? in
                var scanner = JPEGMarkerScanner()
                _ = try? scanner.advance(bytes, stopAtFirstScan: true)
                return scanner.frame.map { ($0.size, scanner.orientation ?? .up) }
            }
            guard let (size, orientation) = frame, let target = targetSize(forStored: size, orientation: orientation) else { return nil }
            return "DCT \(JPEGScale.forThumbnail(target, from: size, filter: thumbnailFilter))"
        case .png:
            guard let plan = try? data.withUnsafeBytes({ buffer -> PNGDecodePlan in
                let context = try SpngContext(decoding: buffer)
                let header = try context.header()
                return try PNGDecodePlan(ihdr: header, hasTransparencyChunk: try context.hasTransparencyChunk())
            }), let target = targetSize(forStored: PixelSize(width: plan.width, height: plan.height), orientation: .up)
            else { return nil }
            return PNGCoder.shrinkFactor(plan: plan, target: target, filter: thumbnailFilter).map { "box ÷\($0)" } ?? "direct"
        default:
            return nil
        }
    }
}
