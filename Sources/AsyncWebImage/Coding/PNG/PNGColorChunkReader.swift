import CSpng
import Foundation

/// Reads what a PNG says about its colour space, in the order of precedence
/// browsers apply: `iCCP` (inflated by libspng), else `sRGB`, else
/// `gAMA`/`cHRM`.
///
/// A libspng context of its own, separate from the decoding one: it reads
/// the chunks before the image data only (where these four must be), with
/// the same chunk limits and CRC rule as the decoder.
enum PNGColorChunkReader {
    /// The colour declaration of `png`, or `nil` when it has none.
    static func profile(in png: UnsafeRawBufferPointer, limit: Int) -> EmbeddedColorProfile? {
        guard let context = try? SpngContext(decoding: png) else { return nil }
        var iccp = spng_iccp()
        let code = spng_get_iccp(context.raw, &iccp)
        if code == 0, let bytes = iccp.profile {
            guard iccp.profile_len <= limit else {
                return .unreadable("the ICC profile is larger than the \(limit)-byte limit")
            }
            return .icc(Data(bytes: bytes, count: iccp.profile_len))
        } else if code != SPNG_ECHUNKAVAIL.rawValue {
            return .unreadable("the iCCP chunk cannot be read: \(SpngContext.message(code))")
        }
        var intent: UInt8 = 0
        if spng_get_srgb(context.raw, &intent) == 0 { return .sRGB }
        var calibration = PNGCalibration()
        var gamma = 0.0
        if spng_get_gama(context.raw, &gamma) == 0 { calibration.gamma = gamma }
        var chrm = spng_chrm()
        if spng_get_chrm(context.raw, &chrm) == 0 {
            calibration.chromaticities = .init(
                white: (chrm.white_point_x, chrm.white_point_y), red: (chrm.red_x, chrm.red_y),
                green: (chrm.green_x, chrm.green_y), blue: (chrm.blue_x, chrm.blue_y)
            )
        }
        guard calibration.gamma != nil || calibration.chromaticities != nil else { return nil }
        if declaresSRGB(calibration) { return .sRGB }
        return .calibrated(calibration)
    }

    /// Whether a `gAMA`/`cHRM` pair is the usual way encoders (ImageMagick,
    /// libpng's defaults) spell sRGB: gamma 1/2.2 (45455 in the chunk) and
    /// Rec. 709 primaries with a D65 white, or no `cHRM`. Chromium reads it
    /// as sRGB too; taken literally, the pure 2.2 power curve would move
    /// dark tones of every such file by a few levels away from what every
    /// viewer shows.
    static func declaresSRGB(_ calibration: PNGCalibration) -> Bool {
        guard let gamma = calibration.gamma, abs(gamma - 1 / 2.2) < 0.0005 else { return false }
        guard let chromaticities = calibration.chromaticities else { return true }
        let srgb: [(Double, Double)] = [(0.3127, 0.3290), (0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
        let given = [chromaticities.white, chromaticities.red, chromaticities.green, chromaticities.blue]
        return zip(given, srgb).allSatisfy { abs($0.0 - $1.0) < 0.001 && abs($0.1 - $1.1) < 0.001 }
    }
}
