extension ImageTransformers.Resize {
    /// The filter the library's resampler uses to compute each output pixel.
    ///
    /// Shrinking widens each kernel by the scale factor, so every source
    /// pixel counts and nothing aliases. Alpha is premultiplied while filtering.
    public enum Filter: String, Sendable, Hashable, CaseIterable {
        /// Area averaging when shrinking (every source pixel counts by the
        /// area it covers), bilinear when enlarging. The speed option: about
        /// a third of Lanczos-3's work, no ringing, but visibly softer: fine
        /// texture (grass, foliage, thin lines) loses contrast. For
        /// thumbnails (``ImageDecodingOptions/thumbnailFilter``) it also
        /// decodes JPEG at the smallest DCT scale covering the target.
        case area
        /// Windowed sinc over 3 lobes, the default: the sharpest of the
        /// filters, as libvips and Pillow thumbnail; faint ringing at hard edges.
        case lanczos3
        /// Tent filter widened by the scale factor (bilinear with prefiltering).
        case triangle
        /// Mitchell–Netravali cubic (B = C = 1/3): a little softer than
        /// Lanczos-3, with less ringing.
        case mitchell
    }
}
