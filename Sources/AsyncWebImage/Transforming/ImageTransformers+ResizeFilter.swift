extension ImageTransformers.Resize {
    /// The filter `ImageResampler` uses to compute each output pixel.
    public enum Filter: String, Sendable, Hashable, CaseIterable {
        /// Area averaging when shrinking (every source pixel counts by the area it
        /// covers, so nothing aliases), bilinear when enlarging. The default: fast
        /// and free of ringing.
        case area
        /// Windowed sinc over 3 lobes: the sharpest, at about 3× the cost of
        /// `.area`, with slight ringing at hard edges.
        case lanczos3
        /// Tent filter widened by the scale factor (bilinear with prefiltering).
        case triangle
    }
}
