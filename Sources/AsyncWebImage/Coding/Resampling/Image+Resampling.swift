extension Image {
    /// This image resampled to `size` with the library's own resampler.
    ///
    /// SPI for the benchmark (`@_spi(Benchmarks) import AsyncWebImage`): its
    /// "full decode then resize" baseline must resize exactly as the
    /// thumbnail path it is compared with does. Not public API; the public
    /// way to resize is a transformer.
    @_spi(Benchmarks) public func resampled(to size: PixelSize, filter: ImageTransformers.Resize.Filter = .area) -> Image {
        ImageResampler.resample(self, to: size, filter: filter)
    }
}
