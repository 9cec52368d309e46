extension ImageTransformers {
    /// Adjusts saturation, brightness and contrast, in that order (Core Image's
    /// `CIColorControls`, Kingfisher's `ColorControlsProcessor`, imgproxy's
    /// `saturation`/`brightness`/`contrast`).
    ///
    /// Works on the gamma-encoded values, per pixel: saturation mixes each
    /// colour channel with the pixel's Rec. 709 luma (`luma + (c − luma) × s`),
    /// brightness adds `b × 255`, contrast scales around the middle gray
    /// (`(c − 127.5) × k + 127.5`); results are clamped to 0…255. Alpha is kept,
    /// and so is the pixel format (saturation does nothing to gray images).
    public struct ColorControls: ImageTransformer {
        /// Saturation: 0 is gray, 1 (the default) unchanged, above 1 more
        /// vivid; at most 10.
        public let saturation: Double
        /// Brightness: −1…1, 0 (the default) unchanged.
        public let brightness: Double
        /// Contrast: 0 is flat gray, 1 (the default) unchanged, above 1 harder;
        /// at most 10.
        public let contrast: Double

        /// Creates an adjustment; every parameter's default leaves the image unchanged.
        public init(saturation: Double = 1, brightness: Double = 0, contrast: Double = 1) {
            self.saturation = saturation
            self.brightness = brightness
            self.contrast = contrast
        }

        /// `colorControls(s=…,b=…,c=…)`.
        public var key: String { "colorControls(s=\(saturation),b=\(brightness),c=\(contrast))" }

        /// Returns the adjusted image; the image itself when nothing changes.
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` for a parameter
        ///   that is not finite or outside its documented range.
        public func transform(_ image: Image) throws -> Image {
            guard saturation.isFinite, (0...10).contains(saturation),
                  brightness.isFinite, (-1...1).contains(brightness),
                  contrast.isFinite, (0...10).contains(contrast) else {
                throw ImageError.transformFailed(
                    key: key, reason: "saturation and contrast must be in 0...10, brightness in -1...1"
                )
            }
            let image = image.uprightForTransform()
            let format = image.pixelFormat
            let saturates = saturation != 1 && !format.isGray
            guard saturates || brightness != 0 || contrast != 1 else { return image }
            // Brightness then contrast, as one lookup table.
            var table = [UInt8](repeating: 0, count: 256)
            for value in 0..<256 {
                let adjusted = ((Double(value) + brightness * 255) - 127.5) * contrast + 127.5
                table[value] = UInt8(max(0, min(255, adjusted.rounded())))
            }
            // Saturation in 8-bit fixed point.
            let mix = Int((saturation * 256).rounded())
            let channels = format.channelCount
            let colourChannels = format.hasAlpha ? channels - 1 : channels
            let (w, h, stride) = (image.width, image.height, image.bytesPerRow)
            return table.withUnsafeBufferPointer { table in
                image.withUnsafeBytes { source in
                    Image.makeTransformed(like: image, width: w, height: h, pixelFormat: format) { destination in
                        let src = source.bindMemory(to: UInt8.self), dst = destination.bindMemory(to: UInt8.self)
                        for y in 0..<h {
                            var s = y * stride, d = y * w * channels
                            for _ in 0..<w {
                                if saturates {
                                    let r = Int(src[s]), g = Int(src[s + 1]), b = Int(src[s + 2])
                                    let luma = (13933 &* r &+ 46871 &* g &+ 4732 &* b &+ 32768) >> 16
                                    @inline(__always) func saturated(_ value: Int) -> UInt8 {
                                        table[min(255, max(0, luma &+ (((value &- luma) &* mix &+ 128) >> 8)))]
                                    }
                                    dst[d] = saturated(r)
                                    dst[d + 1] = saturated(g)
                                    dst[d + 2] = saturated(b)
                                } else {
                                    for c in 0..<colourChannels { dst[d + c] = table[Int(src[s + c])] }
                                }
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

extension ImageTransformer where Self == ImageTransformers.ColorControls {
    /// Saturation, brightness and contrast; see ``ImageTransformers/ColorControls``.
    public static func colorControls(
        saturation: Double = 1, brightness: Double = 0, contrast: Double = 1
    ) -> ImageTransformers.ColorControls {
        ImageTransformers.ColorControls(saturation: saturation, brightness: brightness, contrast: contrast)
    }
}
