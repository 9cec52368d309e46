/// The memory layout of one pixel in an ``Image``: interleaved 8-bit channels.
///
/// Alpha is **straight (not premultiplied)**, as PNG stores it: an `rgba8`
/// pixel `(255, 0, 0, 128)` is pure red at half opacity. Operations that
/// filter across pixels (resampling, blur) premultiply internally so that
/// transparent pixels do not bleed their colour into visible ones.
public enum PixelFormat: Sendable, Hashable, CustomStringConvertible {
    /// Red, green, blue, alpha; 4 bytes per pixel.
    case rgba8
    /// Red, green, blue; 3 bytes per pixel.
    case rgb8
    /// Luminance; 1 byte per pixel.
    case gray8
    /// Luminance, alpha; 2 bytes per pixel.
    case grayAlpha8

    /// The number of interleaved channels, which is also bytes per pixel.
    public var channelCount: Int {
        switch self {
        case .rgba8: 4
        case .rgb8: 3
        case .gray8: 1
        case .grayAlpha8: 2
        }
    }

    /// Bytes one pixel occupies.
    public var bytesPerPixel: Int { channelCount }

    /// Whether the last channel is alpha.
    public var hasAlpha: Bool { self == .rgba8 || self == .grayAlpha8 }

    /// Whether the pixels are luminance only.
    public var isGray: Bool { self == .gray8 || self == .grayAlpha8 }

    public var description: String {
        switch self {
        case .rgba8: "rgba8"
        case .rgb8: "rgb8"
        case .gray8: "gray8"
        case .grayAlpha8: "grayAlpha8"
        }
    }
}
