extension ImageTransformers {
    /// Scales the image to a target size (SDWebImage's
    /// `SDImageResizingTransformer`, Nuke's `ImageProcessors.Resize`).
    ///
    /// Sizes are in display pixels (the orientation is applied first). The
    /// filter is ``ImageTransformers/Resize/Filter/lanczos3`` by default,
    /// with anti-ringing, on the stored (sRGB-encoded) values, alpha
    /// premultiplied, as thumbnails are made;
    /// ``ImageTransformers/Resize/Filter/area`` is the faster, softer
    /// option, and ``ImageTransformers/Resize/Light/linear`` filters in
    /// linear light. The pixel format is kept.
    public struct Resize: ImageTransformer {
        /// How the image's aspect ratio meets the target size.
        public enum Mode: String, Sendable, Hashable, CaseIterable {
            /// Keep the aspect ratio and fit inside the target: one side equals
            /// the target, the other is at most the target (aspect fit).
            case fit
            /// Keep the aspect ratio and cover the target, then crop the centre:
            /// the result is exactly the target size (aspect fill).
            case fill
            /// Scale each axis independently to exactly the target size.
            case stretch
        }

        /// The target size. A side of `Int.max` is unconstrained: with `fit`,
        /// `.resize(width: 320)` scales to 320 pixels wide whatever the height.
        public let size: PixelSize
        /// How the aspect ratio is treated.
        public let mode: Mode
        /// Whether the image may be enlarged. With `false` (the default, as in
        /// Nuke and imgproxy) a scale above 1 is capped at 1: `fit` returns a
        /// smaller image unchanged, `fill` crops the centre without scaling
        /// (at most the target size), `stretch` caps each axis at the image's.
        public let upscale: Bool
        /// The resampling filter.
        public let filter: ImageTransformers.Resize.Filter
        /// The light the filter works in: ``ImageTransformers/Resize/Light/encoded`` by default.
        public let light: ImageTransformers.Resize.Light

        /// Creates a resize to `size`.
        public init(
            size: PixelSize, mode: Mode = .fit, upscale: Bool = false, filter: ImageTransformers.Resize.Filter = .lanczos3,
            light: ImageTransformers.Resize.Light = .encoded
        ) {
            self.size = size
            self.mode = mode
            self.upscale = upscale
            self.filter = filter
            self.light = light
        }

        /// Creates a resize to `width` × `height`.
        public init(
            width: Int, height: Int, mode: Mode = .fit, upscale: Bool = false, filter: ImageTransformers.Resize.Filter = .lanczos3,
            light: ImageTransformers.Resize.Light = .encoded
        ) {
            self.init(size: PixelSize(width: width, height: height), mode: mode, upscale: upscale, filter: filter, light: light)
        }

        /// `resize(w=…,h=…,mode=…,upscale=…,filter=…)`, then `,light=linear`
        /// in linear light; an unconstrained side (`Int.max`) is written `any`.
        public var key: String {
            func side(_ value: Int) -> String { value == .max ? "any" : String(value) }
            let lightPart = light == .encoded ? "" : ",light=\(light.rawValue)"
            return "resize(w=\(side(size.width)),h=\(side(size.height)),mode=\(mode.rawValue),upscale=\(upscale),filter=\(filter.rawValue)\(lightPart))"
        }

        /// Returns the resized image (the image itself when no scaling is needed).
        ///
        /// - Throws: ``ImageError/transformFailed(key:reason:)`` for an empty
        ///   target, or a result larger than ``Image/maximumTransformPixelCount``
        ///   (a huge target is fine when `upscale` is off and the image is small).
        public func transform(_ image: Image) throws -> Image {
            guard size.width > 0, size.height > 0 else {
                throw ImageError.transformFailed(key: key, reason: "empty target size \(size)")
            }
            let image = image.uprightForTransform()
            let (w, h) = (Double(image.width), Double(image.height))
            let (tw, th) = (Double(size.width), Double(size.height))
            // Sizes are computed in Double and checked against the cap before
            // becoming Int, so a hostile target can neither trap nor allocate.
            func checked(_ width: Double, _ height: Double) throws -> PixelSize {
                let width = max(1, width.rounded()), height = max(1, height.rounded())
                guard width * height <= Double(Image.maximumTransformPixelCount) else {
                    throw ImageError.transformFailed(
                        key: key, reason: "output exceeds \(Image.maximumTransformPixelCount) pixels"
                    )
                }
                return PixelSize(width: Int(width), height: Int(height))
            }
            switch mode {
            case .stretch:
                let target = upscale ? try checked(tw, th) : try checked(min(tw, w), min(th, h))
                return ImageResampler.resample(image, to: target, filter: filter, light: light)
            case .fit:
                var scale = min(tw / w, th / h)
                if !upscale { scale = min(scale, 1) }
                // The side that meets the target is exact; the other rounds.
                let target = try checked(
                    tw / w == scale ? tw : min(tw, w * scale),
                    th / h == scale ? th : min(th, h * scale)
                )
                return ImageResampler.resample(image, to: target, filter: filter, light: light)
            case .fill:
                var scale = max(tw / w, th / h)
                if !upscale { scale = min(scale, 1) }
                let target = try checked(min(tw, w * scale), min(th, h * scale))
                // Resample only the centred source region that scales to the
                // target, read in place: no scaled or cropped intermediate.
                let cropWidth = min(image.width, max(1, Int((Double(target.width) / scale).rounded())))
                let cropHeight = min(image.height, max(1, Int((Double(target.height) / scale).rounded())))
                let region = PixelRect(
                    x: (image.width - cropWidth) / 2, y: (image.height - cropHeight) / 2,
                    width: cropWidth, height: cropHeight
                )
                return ImageResampler.resample(image, region: region, to: target, filter: filter, light: light)
            }
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Resize {
    /// A resize to `width` × `height`; see ``ImageTransformers/Resize``.
    public static func resize(
        width: Int, height: Int, mode: ImageTransformers.Resize.Mode = .fit, upscale: Bool = false,
        filter: ImageTransformers.Resize.Filter = .lanczos3
    ) -> ImageTransformers.Resize {
        ImageTransformers.Resize(width: width, height: height, mode: mode, upscale: upscale, filter: filter)
    }

    /// A resize to `width`, the height following the aspect ratio (`fit`
    /// with an unconstrained height); see ``ImageTransformers/Resize``.
    public static func resize(width: Int, upscale: Bool = false, filter: ImageTransformers.Resize.Filter = .lanczos3) -> ImageTransformers.Resize {
        ImageTransformers.Resize(width: width, height: .max, mode: .fit, upscale: upscale, filter: filter)
    }

    /// A resize to `height`, the width following the aspect ratio (`fit`
    /// with an unconstrained width); see ``ImageTransformers/Resize``.
    public static func resize(height: Int, upscale: Bool = false, filter: ImageTransformers.Resize.Filter = .lanczos3) -> ImageTransformers.Resize {
        ImageTransformers.Resize(width: .max, height: height, mode: .fit, upscale: upscale, filter: filter)
    }

    /// A resize to `size`; see ``ImageTransformers/Resize``.
    public static func resize(
        _ size: PixelSize, mode: ImageTransformers.Resize.Mode = .fit, upscale: Bool = false,
        filter: ImageTransformers.Resize.Filter = .lanczos3
    ) -> ImageTransformers.Resize {
        ImageTransformers.Resize(size: size, mode: mode, upscale: upscale, filter: filter)
    }
}
