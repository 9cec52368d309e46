extension Image {
    /// The image converted to sRGB through its ``iccProfile`` (lcms2,
    /// perceptual intent), for images decoded with
    /// ``ImageDecodingOptions/keepsColorProfile`` or made with a profile.
    ///
    /// Returns the image itself when it has no profile or one equivalent to
    /// sRGB; when the profile cannot be used (garbage, wrong colour space),
    /// the same pixels with ``colorConversion`` set to
    /// ``ColorConversion/skipped(reason:)``.
    ///
    /// - Complexity: one pass over the pixels into a new buffer; the lcms2
    ///   transform is built once per profile and pixel format, then cached.
    public func convertedToSRGB() -> Image {
        guard let iccProfile else { return self }
        let plain = with(colorProfile: nil, conversion: .none)
        return ColorManager.manage(plain, profile: .icc(iccProfile), options: ImageDecodingOptions())
    }
}
