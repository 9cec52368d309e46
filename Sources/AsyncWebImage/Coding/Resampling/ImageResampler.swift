/// Resampling of a decoded ``Image`` to an exact size: ``SeparableResampler``
/// fed the image's rows in place, alpha-correct.
package enum ImageResampler {
    /// The filter thumbnails and resizes use unless told otherwise:
    /// Lanczos-3, chosen by measurement against a careful reference
    /// (`awi-bench --scenario thumbnail-quality`).
    package static let defaultFilter: ImageTransformers.Resize.Filter = .lanczos3

    /// The light `filter` works in: linear for the sharp filters (scored
    /// against a careful reference, Lanczos-3 in linear light beat it in
    /// stored values by about 9 points of SSIMULACRA 2 on real photos, at
    /// the cost of two table look-ups a sample); stored values for `.area`,
    /// the speed option, as before.
    package static func light(for filter: ImageTransformers.Resize.Filter) -> SeparableResampler.Light {
        filter == .area ? .gamma : .linear
    }

    /// Resamples `image` to `size` with `filter` in `light`; returns the
    /// image itself when the size is unchanged. Metadata (orientation,
    /// format, preview flag) is kept.
    ///
    /// - Parameter light: `nil` (the default) for the light `filter` calls
    ///   for (``light(for:)``), as thumbnails and `Resize` filter.
    /// - Parameter extent: the image's true width and height in pixels when
    ///   its last column or row stands for less than a whole pixel (the
    ///   partial last box of a box-reduced image).
    ///
    /// - Complexity: O(source pixels × horizontal taps + output pixels × vertical taps).
    package static func resample(
        _ image: Image, to size: PixelSize, filter: ImageTransformers.Resize.Filter = defaultFilter,
        light: SeparableResampler.Light? = nil, extent: (width: Double, height: Double)? = nil
    ) -> Image {
        resample(
            image, region: PixelRect(x: 0, y: 0, width: image.width, height: image.height), to: size,
            filter: filter, light: light, extent: extent
        )
    }

    /// Resamples the pixels of `region` (which must lie inside `image`) to
    /// `size`, reading them in place: a centre-cropping resize costs no copy.
    /// `light` as in ``resample(_:to:filter:light:extent:)``.
    static func resample(
        _ image: Image, region: PixelRect, to size: PixelSize, filter: ImageTransformers.Resize.Filter = defaultFilter,
        light: SeparableResampler.Light? = nil, extent: (width: Double, height: Double)? = nil
    ) -> Image {
        precondition(size.width > 0 && size.height > 0, "resample target must not be empty")
        precondition(region.clamped(toWidth: image.width, height: image.height) == region, "region must lie inside the image")
        if size.width == region.width && size.height == region.height { return image.cropped(to: region) }
        var resampler = SeparableResampler(
            sourceWidth: region.width, sourceHeight: region.height, to: size, pixelFormat: image.pixelFormat,
            filter: filter, light: light ?? Self.light(for: filter), extent: extent
        )
        let bytesPerPixel = image.pixelFormat.bytesPerPixel
        return image.withUnsafeBytes { source in
            let base = source.bindMemory(to: UInt8.self).baseAddress!
            return Image.make(
                width: size.width, height: size.height, pixelFormat: image.pixelFormat,
                orientation: image.orientation, format: image.format, isPreview: image.isPreview
            ) { destination in
                let output = destination.baseAddress!
                for y in 0..<region.height where !resampler.isComplete {
                    resampler.add(
                        row: base + (region.y + y) * image.bytesPerRow + region.x * bytesPerPixel,
                        output: output, bytesPerRow: size.width * bytesPerPixel
                    )
                }
            }
        }
    }
}
