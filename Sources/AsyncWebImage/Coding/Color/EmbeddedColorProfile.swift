import Foundation

/// The colour space a file declares for its pixels, as a decoder read it;
/// what it hands to ``ColorManager/manage(_:profile:options:cache:)``.
enum EmbeddedColorProfile: Sendable, Hashable {
    /// An ICC profile's bytes (JPEG APP2 chunks reassembled, PNG `iCCP`
    /// inflated, WebP `ICCP`, AVIF/HEIC `colr`).
    case icc(Data)
    /// The file says its pixels are sRGB (PNG `sRGB`).
    case sRGB
    /// PNG `gAMA` and/or `cHRM`: a transfer exponent and primaries, from
    /// which an RGB profile is built.
    case calibrated(PNGCalibration)
    /// A profile is there but could not be read whole (missing or repeated
    /// JPEG chunks, over the size limit); `reason` says how.
    case unreadable(String)
}

/// A PNG's `gAMA` and `cHRM` values.
struct PNGCalibration: Sendable, Hashable {
    /// The `gAMA` value: the *encoding* exponent (0.45455 for a 2.2 display
    /// gamma), or `nil` without a `gAMA` chunk (the sRGB curve is assumed).
    var gamma: Double?
    /// The `cHRM` chromaticities, or `nil` without one (sRGB's are assumed).
    var chromaticities: Chromaticities?

    /// White point and primaries, CIE xy.
    struct Chromaticities: Sendable, Hashable {
        var white: (x: Double, y: Double)
        var red: (x: Double, y: Double)
        var green: (x: Double, y: Double)
        var blue: (x: Double, y: Double)

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.white == rhs.white && lhs.red == rhs.red && lhs.green == rhs.green && lhs.blue == rhs.blue
        }

        func hash(into hasher: inout Hasher) {
            for point in [white, red, green, blue] {
                hasher.combine(point.x)
                hasher.combine(point.y)
            }
        }
    }

    /// Whether the values describe sRGB closely enough to need no
    /// conversion: no `cHRM` and a `gAMA` within 1 % of 1/2.2, which is how
    /// most writers (and libpng's "sRGB-like" test) mean "sRGB".
    var isSRGBLike: Bool {
        guard chromaticities == nil else { return false }
        guard let gamma else { return true }
        return abs(gamma - 1 / 2.2) <= 0.0045
    }
}
