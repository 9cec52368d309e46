/// Resampling of a decoded ``Image`` to an exact size: ``SeparableResampler``
/// fed the image's rows in place, alpha-correct.
package enum ImageResampler {
    /// The filter thumbnails and resizes use unless told otherwise:
    /// Lanczos-3, chosen with ``defaultLight`` by a panel of references
    /// (`awi-bench --scenario thumbnail-quality`).
    package static let defaultFilter: ImageTransformers.Resize.Filter = .lanczos3

    /// The light thumbnails and resizes filter in unless told otherwise: the
    /// stored, sRGB-encoded values. Against the panel (SSIMULACRA 2 under
    /// Lanczos-3 in either light and under an exact linear-light area
    /// average), Lanczos-3 on encoded values with anti-ringing was within
    /// reach of the best under all three; in linear light it led under the
    /// linear references and fell 7–10 points behind under the encoded one.
    package static let defaultLight: ImageTransformers.Resize.Light = .encoded

    /// Whether `filter` runs with anti-ringing (``SeparableResampler/clamps``):
    /// the filters with negative lobes. Clamped, Lanczos-3 scored higher
    /// under the area average and drew no value outside its source's range,
    /// for about a point less under the Lanczos-3 references.
    package static func clamps(_ filter: ImageTransformers.Resize.Filter) -> Bool {
        filter == .lanczos3 || filter == .mitchell
    }

    /// The resampling engine's light for `light`.
    static func engineLight(_ light: ImageTransformers.Resize.Light) -> SeparableResampler.Light {
        light == .linear ? .linear : .gamma
    }

    /// Resamples `image` to `size` with `filter` in `light`; returns the
    /// image itself when the size is unchanged. Metadata (orientation,
    /// format, preview flag) is kept.
    ///
    /// - Parameter extent: the image's true width and height in pixels when
    ///   its last column or row stands for less than a whole pixel (the
    ///   partial last box of a box-reduced image).
    ///
    /// - Complexity: O(source pixels × horizontal taps + output pixels × vertical taps).
    package static func resample(
        _ image: Image, to size: PixelSize, filter: ImageTransformers.Resize.Filter = defaultFilter,
        light: ImageTransformers.Resize.Light = defaultLight, extent: (width: Double, height: Double)? = nil
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
        light: ImageTransformers.Resize.Light = defaultLight, extent: (width: Double, height: Double)? = nil
    ) -> Image {
        precondition(size.width > 0 && size.height > 0, "resample target must not be empty")
        precondition(region.clamped(toWidth: image.width, height: image.height) == region, "region must lie inside the image")
        if size.width == region.width && size.height == region.height { return image.cropped(to: region) }
        var resampler = SeparableResampler(
            sourceWidth: region.width, sourceHeight: region.height, to: size, pixelFormat: image.pixelFormat,
            filter: filter, light: engineLight(light), clamps: clamps(filter), extent: extent
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
