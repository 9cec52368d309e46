extension Image {
    /// The EXIF orientation of an image: how the stored pixels must be turned to
    /// be shown upright. Raw values are the EXIF `Orientation` tag values 1–8.
    ///
    /// Case names follow UIKit's `UIImage.Orientation`, which maps to EXIF the
    /// same way (`.right` is EXIF 6, "rotate 90° clockwise to display").
    public enum Orientation: UInt8, Sendable, Hashable, CaseIterable {
        /// EXIF 1: stored upright.
        case up = 1
        /// EXIF 2: mirrored left to right.
        case upMirrored = 2
        /// EXIF 3: rotated 180°.
        case down = 3
        /// EXIF 4: mirrored top to bottom.
        case downMirrored = 4
        /// EXIF 5: mirrored along the main diagonal (transposed).
        case leftMirrored = 5
        /// EXIF 6: must be rotated 90° clockwise to display.
        case right = 6
        /// EXIF 7: mirrored along the anti-diagonal (transversed).
        case rightMirrored = 7
        /// EXIF 8: must be rotated 90° counter-clockwise to display.
        case left = 8

        /// Whether displaying the image swaps its width and height.
        public var swapsDimensions: Bool { rawValue >= 5 }

        /// The orientation for an EXIF tag value, `.up` for anything outside 1–8.
        public init(exifValue: Int) {
            self = Image.Orientation(rawValue: UInt8(clamping: exifValue)) ?? .up
        }
    }
}
