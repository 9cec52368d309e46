/// The built-in transformers, as Nuke keeps its processors in
/// `ImageProcessors`: resize, crop, flip, rotate, round corners, circle,
/// tint, blur, grayscale, colour controls, closures and pipelines.
///
/// ```swift
/// let context = ImageContext(transformer: ImageTransformers.Pipeline([
///     ImageTransformers.Resize(width: 256, height: 256, mode: .fill),
///     ImageTransformers.RoundCorner(radius: 16),
/// ]))
/// ```
///
/// Each has a stable ``ImageTransformer/key``, so results are cached under
/// the transform that made them.
public enum ImageTransformers {}
