extension ImageTransformers {
    /// Turns the image into shades of gray (Kingfisher's `BlackWhiteProcessor`,
    /// SDWebImage's grayscale filter).
    ///
    /// Gray is the luma of the gamma-encoded sRGB values (no linearisation), with
    /// Rec. 709 weights by default (HDTV and sRGB primaries: 0.2126 R + 0.7152 G
    /// + 0.0722 B) or Rec. 601 (0.299 R + 0.587 G + 0.114 B, what JPEG's YCbCr
    /// and most older tools use). The result is `gray8`, or `grayAlpha8` when
    /// the image has alpha, which is kept; a gray image is returned as is.
    public struct Grayscale: ImageTransformer {
        /// The weights of red, green and blue in the luma.
        public enum Luma: String, Sendable, Hashable, CaseIterable {
            /// ITU-R BT.709: 0.2126, 0.7152, 0.0722.
            case rec709
            /// ITU-R BT.601: 0.299, 0.587, 0.114.
            case rec601
        }

        /// The luma weights.
        public let luma: Luma

        /// Creates a grayscale conversion.
        public init(luma: Luma = .rec709) {
            self.luma = luma
        }

        /// `grayscale(luma=rec709)` or `grayscale(luma=rec601)`.
        public var key: String { "grayscale(luma=\(luma.rawValue))" }

        /// Returns the gray image.
        public func transform(_ image: Image) throws -> Image {
            let image = image.uprightForTransform()
            guard !image.pixelFormat.isGray else { return image }
            // 16-bit fixed point weights that sum to exactly 65536, so white stays 255.
            let (wr, wg, wb) = switch luma {
            case .rec709: (13933, 46871, 4732)
            case .rec601: (19595, 38470, 7471)
            }
            let hasAlpha = image.pixelFormat.hasAlpha
            let format: PixelFormat = hasAlpha ? .grayAlpha8 : .gray8
            let (inChannels, outChannels) = (image.pixelFormat.channelCount, format.channelCount)
            let (w, h, stride) = (image.width, image.height, image.bytesPerRow)
            return image.withUnsafeBytes { source in
                Image.makeTransformed(like: image, width: w, height: h, pixelFormat: format) { destination in
                    let src = source.bindMemory(to: UInt8.self), dst = destination.bindMemory(to: UInt8.self)
                    for y in 0..<h {
                        var s = y * stride, d = y * w * outChannels
                        for _ in 0..<w {
                            let gray = (wr &* Int(src[s]) &+ wg &* Int(src[s + 1]) &+ wb &* Int(src[s + 2]) &+ 32768) >> 16
                            dst[d] = UInt8(truncatingIfNeeded: gray)
                            if hasAlpha { dst[d + 1] = src[s + 3] }
                            s += inChannels
                            d += outChannels
                        }
                    }
                }
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Grayscale {
    /// A grayscale conversion; see ``ImageTransformers/Grayscale``.
    public static func grayscale(_ luma: ImageTransformers.Grayscale.Luma = .rec709) -> ImageTransformers.Grayscale {
        ImageTransformers.Grayscale(luma: luma)
    }
}
