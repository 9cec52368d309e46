extension ImageTransformers {
    /// Cuts a rectangle out of the image (SDWebImage's `SDImageCroppingTransformer`).
    ///
    /// The rectangle is in display coordinates (the orientation is applied
    /// first). Pixels are copied exactly; the pixel format is kept.
    public struct Crop: ImageTransformer {
        /// The rectangle to keep.
        public let rect: PixelRect
        /// With `true` (the default) a rectangle reaching outside the image is cut
        /// to the part inside it; with `false` it fails instead. Either way a
        /// rectangle with nothing inside the image fails.
        public let clampsToImage: Bool

        /// Creates a crop of `rect`.
        public init(rect: PixelRect, clampsToImage: Bool = true) {
            self.rect = rect
            self.clampsToImage = clampsToImage
        }

        /// `crop(x=…,y=…,w=…,h=…,clamp=…)`.
        public var key: String {
            "crop(x=\(rect.x),y=\(rect.y),w=\(rect.width),h=\(rect.height),clamp=\(clampsToImage))"
        }

        /// Returns the pixels inside ``rect``.
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` when the
        ///   rectangle is empty, misses the image, or (without
        ///   ``clampsToImage``) is not entirely inside it.
        public func transform(_ image: Image) throws -> Image {
            let image = image.uprightForTransform()
            guard let inside = rect.clamped(toWidth: image.width, height: image.height) else {
                throw ImageError.transformFailed(key: key, reason: "\(rect) has no pixel inside the \(image.size) image")
            }
            guard clampsToImage || inside == rect else {
                throw ImageError.transformFailed(key: key, reason: "\(rect) reaches outside the \(image.size) image")
            }
            return image.cropped(to: inside)
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Crop {
    /// A crop of `rect`; see ``ImageTransformers/Crop``.
    public static func crop(_ rect: PixelRect, clampsToImage: Bool = true) -> ImageTransformers.Crop {
        ImageTransformers.Crop(rect: rect, clampsToImage: clampsToImage)
    }

    /// A crop of the rectangle at `x`, `y` of `width` × `height`; see ``ImageTransformers/Crop``.
    public static func crop(x: Int, y: Int, width: Int, height: Int, clampsToImage: Bool = true) -> ImageTransformers.Crop {
        ImageTransformers.Crop(rect: PixelRect(x: x, y: y, width: width, height: height), clampsToImage: clampsToImage)
    }
}
