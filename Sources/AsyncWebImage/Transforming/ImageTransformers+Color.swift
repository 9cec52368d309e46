extension ImageTransformers {
    /// An sRGB colour with straight alpha, 8 bits per channel: the background of
    /// a rotation, the colour of a tint or of a border.
    public struct Color: Sendable, Hashable, CustomStringConvertible {
        /// Red, 0–255.
        public var red: UInt8
        /// Green, 0–255.
        public var green: UInt8
        /// Blue, 0–255.
        public var blue: UInt8
        /// Opacity, 0 (transparent) – 255 (opaque).
        public var alpha: UInt8

        /// Creates a colour from its components.
        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }

        /// Creates a gray: `white` in each of red, green and blue.
        public init(white: UInt8, alpha: UInt8 = 255) {
            self.init(red: white, green: white, blue: white, alpha: alpha)
        }

        /// Parses `#RGB`, `#RRGGBB` or `#RRGGBBAA` (the `#` is optional, case
        /// ignored); `nil` for anything else.
        public init?(hex: String) {
            var digits = Substring(hex)
            if digits.first == "#" { digits = digits.dropFirst() }
            guard digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
            switch digits.count {
            case 3:
                let r = UInt8((value >> 8) & 0xF), g = UInt8((value >> 4) & 0xF), b = UInt8(value & 0xF)
                self.init(red: r * 17, green: g * 17, blue: b * 17)
            case 6:
                self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
            case 8:
                self.init(
                    red: UInt8(value >> 24), green: UInt8((value >> 16) & 0xFF),
                    blue: UInt8((value >> 8) & 0xFF), alpha: UInt8(value & 0xFF)
                )
            default:
                return nil
            }
        }

        /// Opaque black.
        public static let black = ImageTransformers.Color(white: 0)
        /// Opaque white.
        public static let white = ImageTransformers.Color(white: 255)
        /// Fully transparent black.
        public static let clear = ImageTransformers.Color(white: 0, alpha: 0)

        /// `#rrggbbaa` in lower case: the form transformer keys use.
        public var hex: String {
            let value = UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha)
            let digits = String(value, radix: 16)
            return "#" + String(repeating: "0", count: 8 - digits.count) + digits
        }

        /// The same as ``hex``.
        public var description: String { hex }

        /// Whether red, green and blue are equal.
        var isGray: Bool { red == green && green == blue }

        /// The colour's channels in `format`'s layout (gray by Rec. 709 luma).
        func components(in format: PixelFormat) -> [UInt8] {
            switch format {
            case .rgba8: [red, green, blue, alpha]
            case .rgb8: [red, green, blue]
            case .grayAlpha8: [Image.luma709(red, green, blue), alpha]
            case .gray8: [Image.luma709(red, green, blue)]
            }
        }
    }
}
