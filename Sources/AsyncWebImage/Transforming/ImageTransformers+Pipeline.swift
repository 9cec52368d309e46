extension ImageTransformers {
    /// Applies transformers one after the other (SDWebImage's
    /// `SDImagePipelineTransformer`, Nuke's `ImageProcessors.Composition`).
    public struct Pipeline: ImageTransformer {
        /// The transformers, in the order they run.
        public let transformers: [any ImageTransformer]

        /// Creates a pipeline; nested pipelines are flattened.
        public init(_ transformers: [any ImageTransformer]) {
            self.transformers = transformers.flatMap { ($0 as? ImageTransformers.Pipeline)?.transformers ?? [$0] }
        }

        /// The keys of the transformers joined by `|`, e.g.
        /// `resize(w=256,…)|roundCorners(r=16.0,…)`; empty for an empty pipeline,
        /// which returns images unchanged.
        public var key: String { transformers.map(\.key).joined(separator: "|") }

        /// Runs every transformer in order.
        ///
        /// - Throws: the first transformer's error, or `CancellationError` when
        ///   the calling task is cancelled between two steps.
        public func transform(_ image: Image) throws -> Image {
            var image = image
            for transformer in transformers {
                try Task.checkCancellation()
                image = try transformer.transform(image)
            }
            return image
        }
    }
}

extension ImageTransformer where Self == ImageTransformers.Pipeline {
    /// A pipeline of `transformers`, applied in order; see ``ImageTransformers/Pipeline``.
    public static func pipeline(_ transformers: [any ImageTransformer]) -> ImageTransformers.Pipeline {
        ImageTransformers.Pipeline(transformers)
    }
}
