extension ImageTransformers.Resize {
    /// The values a resize filters: the stored sRGB-encoded values, or
    /// linear light.
    ///
    /// Neither is right everywhere, and the library's thumbnails are judged
    /// under both (`awi-bench --scenario thumbnail-quality`: SSIMULACRA 2
    /// against Lanczos-3 on encoded values, Lanczos-3 in linear light and
    /// an exact linear-light area average). Encoded values are what libvips,
    /// Pillow, ImageMagick's default and browsers resize, and keep dark
    /// outlines and bright lines as bold as the eye expects; linear light
    /// averages brightness as light does, so fine light-on-dark patterns
    /// (thin bright lines, checkerboards, star fields) keep their mean
    /// brightness where encoded averaging darkens them by up to half.
    public enum Light: String, Sendable, Hashable, CaseIterable {
        /// The stored, sRGB-encoded values: the default.
        case encoded
        /// Linear light (sRGB decoded before filtering, encoded after). The
        /// sharp filters then clamp every pass to the range of the pixels
        /// under their main lobe, so their negative lobes, which in linear
        /// light draw a dark line beside every bright edge, cannot.
        case linear
    }
}
