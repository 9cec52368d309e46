/// Something that turns one decoded ``Image`` into another: resize, crop,
/// rotate, blur, … (SDWebImage's `SDImageTransformer`, Nuke's `ImageProcessing`).
///
/// The loader runs transformers off every actor, on its bounded CPU pool,
/// and caches the result under the original key plus ``key``, so the same
/// transform of the same URL is computed once.
///
/// ## Orientation
/// Every built-in transformer works in **display coordinates**: when the
/// image it is given is not `.up`, it first applies the EXIF orientation
/// (``Image/applyingOrientation()``), so a crop rectangle, a flip or a
/// rotation means what the user sees, and the result is always `.up`.
/// Custom transformers should do the same.
///
/// ## Pixel formats and alpha
/// Built-ins accept every ``PixelFormat``. Alpha is straight; operations that
/// mix neighbouring pixels (resize, blur, rotation by an arbitrary angle)
/// premultiply internally so transparent pixels never bleed colour. Each
/// built-in documents the pixel format it returns.
///
/// ## Limits
/// Built-ins never produce more than ``Image/maximumTransformPixelCount``
/// (100 megapixels) and throw ``ImageError/transformFailed(key:reason:)``
/// for bad parameters (empty sizes, a crop outside the image, a blur radius
/// out of range) instead of trapping.
public protocol ImageTransformer: Sendable {
    /// A string that identifies this transform and every one of its
    /// parameters, stable across runs and processes: it becomes part of cache
    /// keys, on disk. Two transformers with the same key must produce the
    /// same pixels. For example `resize(w=256,h=256,mode=fit,upscale=false,filter=area)`.
    var key: String { get }

    /// Returns the transformed image.
    ///
    /// Called concurrently from several tasks; must not keep mutable state.
    /// - Throws: ``ImageError/transformFailed(key:reason:)`` (or
    ///   `CancellationError` when the calling task is cancelled).
    func transform(_ image: Image) throws -> Image
}

extension ImageTransformer {
    /// A pipeline that runs `self`, then `next`.
    ///
    /// ```swift
    /// let thumbnail = ImageTransformers.Resize.resize(width: 256, height: 256, mode: .fill).then(.roundCorners(radius: 16))
    /// ```
    public func then(_ next: any ImageTransformer) -> ImageTransformers.Pipeline {
        ImageTransformers.Pipeline([self, next])
    }
}
