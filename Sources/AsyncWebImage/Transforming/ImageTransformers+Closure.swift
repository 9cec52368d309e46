extension ImageTransformers {
    /// A transformer made of a key and a closure, for one-off processing
    /// without declaring a type (Nuke's `ImageProcessors.Anonymous`).
    ///
    /// ```swift
    /// let watermark = ImageTransformers.Closure(key: "watermark(v=2)") { image in try addWatermark(to: image) }
    /// ```
    ///
    /// - Important: the key is trusted: it must change whenever the closure's
    ///   output would, or caches will serve stale results. Version it.
    public struct Closure: ImageTransformer {
        /// The caller's key, used as is.
        public let key: String
        private let body: @Sendable (Image) throws -> Image

        /// Creates a transformer that runs `body` under `key`.
        ///
        /// `body` receives the image as decoded (orientation not applied); call
        /// ``Image/applyingOrientation()`` first to work in display coordinates.
        public init(key: String, _ body: @escaping @Sendable (Image) throws -> Image) {
            self.key = key
            self.body = body
        }

        /// Runs the closure.
        public func transform(_ image: Image) throws -> Image {
            try body(image)
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Closure {
    /// A transformer running `body` under `key`; see ``ImageTransformers/Closure``.
    public static func custom(key: String, _ body: @escaping @Sendable (Image) throws -> Image) -> ImageTransformers.Closure {
        ImageTransformers.Closure(key: key, body)
    }
}
