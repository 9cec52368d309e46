extension ImageTransformers {
    /// Cuts the largest centred circle out of the image, optionally with a
    /// border (Nuke's `ImageProcessors.Circle`).
    ///
    /// The image is cropped to its centred square (in display coordinates),
    /// then rounded with a radius of half the side: the result is a square
    /// `rgba8` image, transparent outside the antialiased circle.
    public struct Circle: ImageTransformer {
        /// The border's width in pixels (0, the default, for none).
        public let borderWidth: Double
        /// The border's colour.
        public let borderColor: ImageTransformers.Color

        /// Creates a circle crop.
        public init(borderWidth: Double = 0, borderColor: ImageTransformers.Color = .black) {
            self.borderWidth = borderWidth
            self.borderColor = borderColor
        }

        /// `circle(border=…,color=#rrggbbaa)`.
        public var key: String { "circle(border=\(borderWidth),color=\(borderColor.hex))" }

        /// Returns the square `rgba8` image with everything outside the circle transparent.
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` for a negative
        ///   or non-finite border width.
        public func transform(_ image: Image) throws -> Image {
            let image = image.uprightForTransform()
            let side = min(image.width, image.height)
            let square = image.cropped(
                to: PixelRect(x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
            )
            do {
                return try ImageTransformers.RoundCorner(
                    radius: Double(side) / 2, borderWidth: borderWidth, borderColor: borderColor
                ).transform(square)
            } catch ImageError.transformFailed(_, let reason) {
                throw ImageError.transformFailed(key: key, reason: reason)
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Circle {
    /// A circle crop; see ``ImageTransformers/Circle``.
    public static func circle(borderWidth: Double = 0, borderColor: ImageTransformers.Color = .black) -> ImageTransformers.Circle {
        ImageTransformers.Circle(borderWidth: borderWidth, borderColor: borderColor)
    }
}
