extension Image {
    /// The image converted to sRGB through its ``iccProfile`` (lcms2,
    /// perceptual intent), for images decoded with
    /// ``ImageDecodingOptions/keepsColorProfile`` or made with a profile.
    ///
    /// Returns the image itself when it has no profile or one equivalent to
    /// sRGB; when the profile cannot be used (garbage, wrong colour space),
    /// the same pixels with ``colorConversion`` set to
    /// ``Image/ColorConversion/skipped(reason:)``.
    ///
    /// - Complexity: one pass over the pixels into a new buffer; the lcms2
    ///   transform is built once per profile and pixel format, then cached.
    public func convertedToSRGB() -> Image {
        convertedToSRGB(usingFastPath: true)
    }

    /// SPI for the benchmark (`import AsyncWebImage`):
    /// ``convertedToSRGB()``, or with `usingFastPath: false` the same
    /// conversion through lcms2's transform even where the library's
    /// matrix/TRC fast path would take over, to compare the two; with
    /// `vectorized: false` the fast path keeps to its scalar loop on CPUs
    /// that have its AVX-512 path (to measure the one against the other).
    package func convertedToSRGB(usingFastPath: Bool, vectorized: Bool = true) -> Image {
        guard let iccProfile else { return self }
        let plain = with(colorProfile: nil, conversion: .none)
        return ColorManager.manage(
            plain, profile: .icc(iccProfile), options: ImageDecodingOptions(), usingFastPath: usingFastPath, vectorized: vectorized
        )
    }
}
