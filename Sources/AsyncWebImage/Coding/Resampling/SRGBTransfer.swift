import Foundation

/// The sRGB transfer function as tables, for resampling in linear light:
/// 8-bit samples to linear values, and linear values back to 8-bit samples.
enum SRGBTransfer {
    /// The linear value (0...1) of each 8-bit sRGB sample.
    static let linearFromByte: [Float] = (0..<256).map { Float(decode(Double($0) / 255)) }

    /// The linear value of each 8-bit sRGB sample in steps of ``byteFromLinear``
    /// (`linear × scale`, rounded): the box reducers' linear-light sums.
    static let linear16FromByte: [UInt16] = (0..<256).map { UInt16((decode(Double($0) / 255) * 65_535).rounded()) }

    /// Steps of ``byteFromLinear``: a linear value `v` (0...1) maps to index
    /// `v × scale`. 2¹⁶ steps keep every 8-bit code apart: the closest two
    /// (0 and 1, 0.00030 apart in linear light) are 20 steps apart.
    static let scale: Float = 65_535

    /// The nearest 8-bit sRGB sample of each linear value `index / scale`.
    static let byteFromLinear: [UInt8] = (0...65_535).map { index in
        let encoded = encode(Double(index) / Double(scale)) * 255
        return UInt8(min(255, max(0, encoded.rounded())))
    }

    /// sRGB → linear (IEC 61966-2-1).
    static func decode(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// Linear → sRGB (IEC 61966-2-1).
    static func encode(_ value: Double) -> Double {
        value <= 0.0031308 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
    }
}
