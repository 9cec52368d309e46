extension Image {
    /// What colour management did to an image's pixels at decode: see
    /// ``Image/colorConversion``.
    ///
    /// Decoders read the colour profile a file embeds (a JPEG's APP2
    /// `ICC_PROFILE` chunks; a PNG's `iCCP`, `sRGB` or `gAMA`/`cHRM` chunks) and,
    /// by default, convert the pixels to sRGB with lcms2 (perceptual intent), as
    /// browsers display them. ``ImageDecodingOptions/keepsColorProfile`` keeps
    /// the source pixels instead and hands the profile over in
    /// ``Image/iccProfile``.
    public enum ColorConversion: Sendable, Hashable, CustomStringConvertible {
        /// Nothing to do: the file has no colour profile, or one equivalent to
        /// sRGB (including a PNG `sRGB` chunk, or a `gAMA` of about 1/2.2 without
        /// `cHRM`). The pixels are taken as sRGB. Also the value of images built
        /// in memory without a profile, and of progressive previews, which are
        /// never converted.
        case none
        /// The pixels were converted from the embedded profile to sRGB.
        case converted
        /// The pixels are as stored in the file, in the colour space of
        /// ``Image/iccProfile`` (``ImageDecodingOptions/keepsColorProfile``).
        case kept
        /// The file carries a colour profile that could not be used (larger than
        /// ``ImageDecodingOptions/maximumColorProfileBytes``, truncated, garbage,
        /// refused by lcms2, or for another colour space than the pixels'), so the
        /// pixels are as stored in the file, unconverted. `reason` says why.
        case skipped(reason: String)

        public var description: String {
            switch self {
            case .none: "none"
            case .converted: "converted to sRGB"
            case .kept: "kept in the source profile"
            case .skipped(let reason): "skipped: \(reason)"
            }
        }
    }
}
