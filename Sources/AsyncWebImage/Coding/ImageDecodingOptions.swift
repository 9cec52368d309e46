/// How a decoder should turn data into pixels: size, limits and orientation.
public struct ImageDecodingOptions: Sendable, Hashable {
    /// Decode a thumbnail no larger than this (in oriented, displayed pixels)
    /// instead of the full image. `nil` by default (full size).
    ///
    /// JPEG decoding uses TurboJPEG's DCT-domain scaling to the smallest scale
    /// that still covers the target, then resamples with an area-averaging
    /// filter to the exact size. An image already smaller is not enlarged.
    public var thumbnailPixelSize: PixelSize?

    /// With a ``thumbnailPixelSize``: keep the aspect ratio and fit inside the
    /// size (`true`, the default), or produce exactly that size (`false`).
    public var preserveAspectRatio: Bool = true

    /// Scale the image down when its decoded pixels would exceed
    /// ``scaleDownLimitBytes``. `false` by default.
    public var scaleDownLargeImages: Bool = false

    /// The decoded-bytes limit for ``scaleDownLargeImages``: 60 MiB by default, as SDWebImage.
    public var scaleDownLimitBytes: Int = 60 * 1024 * 1024

    /// The most pixels a header may declare; larger images fail with
    /// ``ImageError/tooLarge(_:limit:actual:)`` before any pixel buffer is
    /// allocated. 100 megapixels by default (400 MB as RGBA).
    public var maxPixelCount: Int = 100_000_000

    /// The most bytes one decode may allocate for pixels and its working
    /// buffers (the decoded image, reducer sums, row buffers — 16-bit rows at
    /// their real size — and resampling intermediates), computed from the
    /// header before any of them is allocated; work over it fails with
    /// ``ImageError/tooLarge(_:limit:actual:)`` (`.decodedBytes`). 512 MiB by
    /// default: a full decode of 100 megapixels as RGBA fits.
    ///
    /// Honoured by ``PNGCoder``, which then picks the leanest way within it
    /// (row-by-row shrinking or resampling for thumbnails; its one-call
    /// inflate only when the inflated data also fits). Other coders are
    /// bounded by ``maxPixelCount``.
    public var maxDecodeMemoryBytes: Int = 512 * 1024 * 1024

    /// Rotate and mirror the pixels by the EXIF orientation, so the result is
    /// `.up`. `false` by default: the orientation is reported, not applied.
    public var applyOrientation: Bool = false

    /// Creates options; every value has the default documented on its property.
    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLargeImages: Bool = false,
        scaleDownLimitBytes: Int = 60 * 1024 * 1024,
        maxPixelCount: Int = 100_000_000,
        applyOrientation: Bool = false,
        maxDecodeMemoryBytes: Int = 512 * 1024 * 1024
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLargeImages = scaleDownLargeImages
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.maxPixelCount = maxPixelCount
        self.applyOrientation = applyOrientation
        self.maxDecodeMemoryBytes = maxDecodeMemoryBytes
    }

    /// A string that differs whenever the options change the decoded result;
    /// part of the cache key of a decoded image.
    public var cacheKeySuffix: String {
        var parts: [String] = []
        if let size = thumbnailPixelSize {
            parts.append("thumb=\(size.width)x\(size.height)\(preserveAspectRatio ? "" : ",stretch")")
        }
        if scaleDownLargeImages { parts.append("scaleDown=\(scaleDownLimitBytes)") }
        if applyOrientation { parts.append("oriented") }
        return parts.isEmpty ? "" : "#" + parts.joined(separator: ";")
    }
}
