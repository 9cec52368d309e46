extension ImageDecodingOptions {
    /// The stored-pixel size a decoder should produce for an image whose
    /// stored size is `size`, or `nil` when the full size is wanted.
    ///
    /// ``thumbnailPixelSize`` is in displayed pixels, so it is compared with
    /// the oriented size and the result turned back. Images are never
    /// enlarged: with `preserveAspectRatio` the result fits inside the
    /// thumbnail size (or covers it, with ``coversThumbnailPixelSize``);
    /// without it each side is the smaller of the thumbnail's and the image's. ``scaleDownLargeImages`` then shrinks the result
    /// (keeping its aspect) until 4 bytes per pixel fit ``scaleDownLimitBytes``.
    public func targetSize(forStored size: PixelSize, orientation: Image.Orientation) -> PixelSize? {
        guard size.width > 0, size.height > 0 else { return nil }
        let oriented = orientation.swapsDimensions ? PixelSize(width: size.height, height: size.width) : size
        var target = oriented
        if let thumbnail = thumbnailPixelSize, thumbnail.width > 0, thumbnail.height > 0 {
            if preserveAspectRatio {
                let ratios = (Double(thumbnail.width) / Double(oriented.width), Double(thumbnail.height) / Double(oriented.height))
                let ratio = coversThumbnailPixelSize ? max(ratios.0, ratios.1) : min(ratios.0, ratios.1)
                if ratio < 1 {
                    target = PixelSize(
                        width: max(1, Int((Double(oriented.width) * ratio).rounded())),
                        height: max(1, Int((Double(oriented.height) * ratio).rounded()))
                    )
                }
            } else {
                target = PixelSize(width: min(thumbnail.width, oriented.width), height: min(thumbnail.height, oriented.height))
            }
        }
        if scaleDownLargeImages, scaleDownLimitBytes > 0 {
            let bytes = Double(target.width) * Double(target.height) * 4
            if bytes > Double(scaleDownLimitBytes) {
                let ratio = (Double(scaleDownLimitBytes) / bytes).squareRoot()
                target = PixelSize(
                    width: max(1, Int(Double(target.width) * ratio)),
                    height: max(1, Int(Double(target.height) * ratio))
                )
            }
        }
        guard target != oriented else { return nil }
        return orientation.swapsDimensions ? PixelSize(width: target.height, height: target.width) : target
    }

    /// Throws unless an image of `size`, as its header declares it, may be
    /// decoded. Call before allocating any pixel buffer.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` with `.pixels` over
    ///   ``maxPixelCount``; ``ImageError/invalidImage(_:)`` for an empty size.
    public func checkPixelLimit(_ size: PixelSize) throws(ImageError) {
        guard size.width > 0, size.height > 0 else { throw .invalidImage("header declares \(size)") }
        let pixels = size.pixelCount
        guard pixels <= maxPixelCount else {
            throw .tooLarge(.pixels, limit: Int64(maxPixelCount), actual: Int64(clamping: pixels))
        }
    }
}
