extension ImageTransformers {
    /// Blends a colour over the image where the image is visible (SDWebImage's
    /// `SDImageTintTransformer`, Kingfisher's `TintImageProcessor`).
    ///
    /// Each colour channel becomes `c × (1 − α) + tint × α`, with `α` the tint's
    /// alpha; the image's own alpha is kept (the "source atop" blend), so
    /// transparent areas stay transparent. A gray tint keeps a gray image gray;
    /// any other tint turns `gray8`/`grayAlpha8` into `rgb8`/`rgba8`.
    public struct Tint: ImageTransformer {
        /// The colour, with its alpha as the strength of the tint.
        public let color: ImageTransformers.Color

        /// Creates a tint by `color`.
        public init(color: ImageTransformers.Color) {
            self.color = color
        }

        /// `tint(color=#rrggbbaa)`.
        public var key: String { "tint(color=\(color.hex))" }

        /// Returns the tinted image; the image itself for a fully transparent tint.
        public func transform(_ image: Image) throws -> Image {
            let upright = image.uprightForTransform()
            guard color.alpha > 0 else { return upright }
            let format: PixelFormat = switch (upright.pixelFormat.isGray && color.isGray, upright.pixelFormat.hasAlpha) {
            case (true, true): .grayAlpha8
            case (true, false): .gray8
            case (false, true): .rgba8
            case (false, false): .rgb8
            }
            let image = upright.converted(to: format)
            let tint = color.components(in: format)
            // One 256-entry table per colour channel: the blend is a lookup.
            let strength = Int(color.alpha)
            var tables = [UInt8](repeating: 0, count: 256 * 3)
            for channel in 0..<min(3, tint.count) {
                for value in 0..<256 {
                    tables[channel * 256 + value] = UInt8((value * (255 - strength) + Int(tint[channel]) * strength + 127) / 255)
                }
            }
            let channels = format.channelCount
            let colourChannels = format.hasAlpha ? channels - 1 : channels
            let (w, h, stride) = (image.width, image.height, image.bytesPerRow)
            return tables.withUnsafeBufferPointer { table in
                image.withUnsafeBytes { source in
                    Image.makeTransformed(like: image, width: w, height: h, pixelFormat: format) { destination in
                        let src = source.bindMemory(to: UInt8.self), dst = destination.bindMemory(to: UInt8.self)
                        for y in 0..<h {
                            var s = y * stride, d = y * w * channels
                            for _ in 0..<w {
                                for c in 0..<colourChannels { dst[d + c] = table[c &* 256 &+ Int(src[s + c])] }
                                if colourChannels < channels { dst[d + colourChannels] = src[s + colourChannels] }
                                s += channels
                                d += channels
                            }
                        }
                    }
                }
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Tint {
    /// A tint by `color`; see ``ImageTransformers/Tint``.
    public static func tint(_ color: ImageTransformers.Color) -> ImageTransformers.Tint {
        ImageTransformers.Tint(color: color)
    }
}
