/// How a decoder should turn data into pixels: size, limits and orientation.
public struct ImageDecodingOptions: Sendable, Hashable {
    /// Decode a thumbnail no larger than this (in oriented, displayed pixels)
    /// instead of the full image. `nil` by default (full size).
    ///
    /// Every format decodes as small as it can while still leaving the
    /// filter room to work (JPEG's DCT scaling to at least twice the target,
    /// PNG's box shrink to at least twice, HEIC's embedded thumbnail when it
    /// covers the target), then resamples to the exact size with
    /// ``thumbnailFilter``. An image already smaller is not enlarged.
    public var thumbnailPixelSize: PixelSize?

    /// The filter that takes a thumbnail from its reduced decode to the
    /// exact size. ``ImageTransformers/Resize/Filter/lanczos3`` by default,
    /// with anti-ringing, in ``thumbnailLight``: chosen by a panel of
    /// references (`awi-bench --scenario thumbnail-quality`), with the CPU
    /// it costs.
    ///
    /// ``ImageTransformers/Resize/Filter/area`` is the speed option: it
    /// decodes at the smallest reduction covering the target and
    /// area-averages the rest, softer (fine texture such as grass or
    /// foliage loses contrast).
    public var thumbnailFilter: ImageTransformers.Resize.Filter = ImageResampler.defaultFilter

    /// The light ``thumbnailFilter`` works in:
    /// ``ImageTransformers/Resize/Light/encoded`` (the stored sRGB values,
    /// as libvips and Pillow) by default; ``ImageTransformers/Resize/Light/linear``
    /// keeps the mean brightness of fine light-on-dark patterns (it also
    /// box-shrinks PNGs in linear light), with anti-ringing. Its scores
    /// beside the default's are in the README's "Thumbnails" section.
    public var thumbnailLight: ImageTransformers.Resize.Light = ImageResampler.defaultLight

    /// With a ``thumbnailPixelSize``: keep the aspect ratio and fit inside the
    /// size (`true`, the default), or produce exactly that size (`false`).
    public var preserveAspectRatio: Bool = true

    /// With a ``thumbnailPixelSize`` and ``preserveAspectRatio``: scale to
    /// the smallest size that covers it (each side at least the thumbnail's,
    /// one of them beyond it) instead of fitting inside. `false` by default.
    ///
    /// For a crop that follows (a "fill" thumbnail): the decode is as small
    /// as the crop allows, JPEG's DCT scaling and PNG's shrinking included.
    /// An image already smaller than that is not enlarged.
    public var coversThumbnailPixelSize: Bool = false

    /// With a ``thumbnailPixelSize`` or ``scaleDownLargeImages``: decode an
    /// image's embedded thumbnail instead of the full image when one can
    /// stand in for it, as libvips's `thumbnail` does. `true` by default.
    ///
    /// HEIC files from phones carry one (a 512-pixel box from iPhones):
    /// a 256-pixel thumbnail of a 12-megapixel photo then decodes that
    /// instead of the full HEVC grid, about ten times less work. It is used
    /// only when it covers the size asked for on both sides, has the full
    /// image's aspect ratio to within a pixel and its alpha, and decodes;
    /// the result is that thumbnail resampled, so its pixels differ
    /// slightly from the full image resampled (the thumbnail was coded at
    /// its own quality). Set `false` for those. Used by `HEIFCoder` (the AsyncWebImageHEIF product); the
    /// other formats have no embedded thumbnail this package reads.
    public var usesEmbeddedThumbnails: Bool = true

    /// Scale the image down when its decoded pixels would exceed
    /// ``scaleDownLimitBytes``. `false` by default.
    public var scaleDownLargeImages: Bool = false





    /// Decode animated files as a still image of their first frame, with no
    /// ``Image/animation``. `false` by default
    /// (``ImageOptions/decodeFirstFrameOnly`` sets it).
    public var decodesFirstFrameOnly: Bool = false

    /// Decode every frame of an animation before the decode returns
    /// (``AnimatedImage/preloadAllFrames()``). `false` by default: frame 0
    /// only, the others on demand (``ImageOptions/preloadAllFrames`` sets it).
    public var preloadsAllFrames: Bool = false

    /// The bound of an animation's frame buffer in bytes
    /// (``AnimatedImage/maxBufferBytes``): 16 MiB by default.
    public var maxAnimationBufferBytes: Int = AnimatedImage.defaultMaxBufferBytes

    /// Rotate and mirror the pixels by the EXIF orientation, so the result is
    /// `.up`. `false` by default: the orientation is reported, not applied.
    public var applyOrientation: Bool = false



    /// Keep the pixels in the colour space of the file's embedded profile
    /// and hand the profile over in ``Image/iccProfile`` (with
    /// ``Image/colorConversion`` ``Image/ColorConversion/kept``), instead of
    /// converting them to sRGB. `false` by default: full decodes convert to
    /// sRGB with lcms2 (perceptual intent), as browsers display them.
    /// Profiles equivalent to sRGB are never handed over; CMYK JPEGs are
    /// converted either way (there is no CMYK ``PixelFormat``).
    public var keepsColorProfile: Bool = false

    /// The largest embedded colour profile used, in bytes: 4 MiB by default
    /// (real profiles, even large CMYK ones, stay below). A larger one is
    /// not read beyond the limit and the image decodes unconverted, with
    /// ``Image/ColorConversion/skipped(reason:)``.
    public var maximumColorProfileBytes: Int = 4 << 20


    /// The bounds of this decode (see ``Limits``): one value, so a loader's
    /// limits reach every decode it runs whole.
    public var limits = Limits()

    /// ``Limits/maxPixelCount`` of ``limits``.
    public var maxPixelCount: Int {
        get { limits.maxPixelCount }
        set { limits.maxPixelCount = newValue }
    }

    /// ``Limits/maxDecodeMemoryBytes`` of ``limits``.
    public var maxDecodeMemoryBytes: Int {
        get { limits.maxDecodeMemoryBytes }
        set { limits.maxDecodeMemoryBytes = newValue }
    }

    /// ``Limits/maxAnimationPixelCount`` of ``limits``.
    public var maxAnimationPixelCount: Int {
        get { limits.maxAnimationPixelCount }
        set { limits.maxAnimationPixelCount = newValue }
    }

    /// ``Limits/maxScanCount`` of ``limits``.
    public var maxScanCount: Int {
        get { limits.maxScanCount }
        set { limits.maxScanCount = newValue }
    }

    /// ``Limits/maxScanBlockCount`` of ``limits``.
    public var maxScanBlockCount: Int {
        get { limits.maxScanBlockCount }
        set { limits.maxScanBlockCount = newValue }
    }

    /// ``Limits/scaleDownLimitBytes`` of ``limits``.
    public var scaleDownLimitBytes: Int {
        get { limits.scaleDownLimitBytes }
        set { limits.scaleDownLimitBytes = newValue }
    }

    /// Creates options; every value has the default documented on its property.
    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLargeImages: Bool = false,
        scaleDownLimitBytes: Int = 60 * 1024 * 1024,
        maxPixelCount: Int = 100_000_000,
        applyOrientation: Bool = false,
        maxScanCount: Int = 100,
        maxScanBlockCount: Int = 50_000_000,
        keepsColorProfile: Bool = false,
        maxDecodeMemoryBytes: Int = 512 * 1024 * 1024
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLargeImages = scaleDownLargeImages
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.maxPixelCount = maxPixelCount
        self.applyOrientation = applyOrientation
        self.maxScanCount = maxScanCount
        self.maxScanBlockCount = maxScanBlockCount
        self.keepsColorProfile = keepsColorProfile
        self.maxDecodeMemoryBytes = maxDecodeMemoryBytes
    }

    /// Resamples a decoded (or partly reduced) image to a thumbnail `size`
    /// with ``thumbnailFilter`` in the light it calls for.
    package func resampleThumbnail(_ image: Image, to size: PixelSize, extent: (width: Double, height: Double)? = nil) -> Image {
        ImageResampler.resample(image, to: size, filter: thumbnailFilter, light: thumbnailLight, extent: extent)
    }

    /// A ``StreamingResampler`` for a thumbnail, as ``resampleThumbnail(_:to:)`` filters.
    package func thumbnailResampler(
        sourceWidth: Int, sourceHeight: Int, to size: PixelSize, pixelFormat: PixelFormat,
        extent: (width: Double, height: Double)? = nil
    ) -> StreamingResampler? {
        StreamingResampler(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, to: size, pixelFormat: pixelFormat,
            filter: thumbnailFilter, light: thumbnailLight, extent: extent
        )
    }

    /// Throws when a JPEG's scans exceed ``maxScanCount`` or ``maxScanBlockCount``.
    ///
    /// - Parameters:
    ///   - scans: scans counted by the marker scan.
    ///   - blocks: the 8×8 blocks those scans code, summed.
    func checkScanLimits(scans: Int, blocks: Int) throws(ImageError) {
        guard scans <= maxScanCount else {
            throw .tooLarge(.scans, limit: Int64(maxScanCount), actual: Int64(scans))
        }
        guard blocks <= maxScanBlockCount else {
            throw .tooLarge(.scanBlocks, limit: Int64(maxScanBlockCount), actual: Int64(blocks))
        }
    }

    /// A string that differs whenever the options change the decoded result;
    /// part of the cache key of a decoded image.
    public var cacheKeySuffix: String {
        var parts: [String] = []
        if let size = thumbnailPixelSize {
            parts.append("thumb=\(size.width)x\(size.height)\(preserveAspectRatio ? (coversThumbnailPixelSize ? ",cover" : "") : ",stretch")")
        }
        if scaleDownLargeImages { parts.append("scaleDown=\(scaleDownLimitBytes)") }
        if !usesEmbeddedThumbnails && (thumbnailPixelSize != nil || scaleDownLargeImages) { parts.append("noEmbeddedThumbnail") }
        if thumbnailFilter != ImageResampler.defaultFilter && (thumbnailPixelSize != nil || scaleDownLargeImages) {
            parts.append("filter=\(thumbnailFilter.rawValue)")
        }
        if thumbnailLight != ImageResampler.defaultLight && (thumbnailPixelSize != nil || scaleDownLargeImages) {
            parts.append("light=\(thumbnailLight.rawValue)")
        }
        if applyOrientation { parts.append("oriented") }
        if keepsColorProfile { parts.append("keepICC") }
        if maximumColorProfileBytes != 4 << 20 { parts.append("iccLimit=\(maximumColorProfileBytes)") }
        if decodesFirstFrameOnly { parts.append("firstFrame") }
        if preloadsAllFrames { parts.append("preload") }
        if maxAnimationBufferBytes != AnimatedImage.defaultMaxBufferBytes { parts.append("animBuffer=\(maxAnimationBufferBytes)") }
        return parts.isEmpty ? "" : "#" + parts.joined(separator: ";")
    }
}

extension ImageDecodingOptions {
    /// The bounds every decode is held to, checked from headers and
    /// structure before pixels are allocated: what a loader owns in
    /// ``ImageLoader/Configuration/decodingLimits`` and hands to every decode
    /// it runs, and what a server lowers for untrusted input.
    public struct Limits: Sendable, Hashable {
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

        /// The most pixels an animation may hold over all its frames (frame count
        /// × canvas), checked from the container before any frame is decoded;
        /// more fails with ``ImageError/tooLarge(_:limit:actual:)``
        /// (`.animationPixels`). One gigapixel by default: 480 frames of 1080p.
        public var maxAnimationPixelCount: Int = 1_000_000_000

        /// The most scans a JPEG may have; more fail with
        /// ``ImageError/tooLarge(_:limit:actual:)`` (``ImageError/LimitKind/scans``)
        /// from the marker scan, before anything is decoded — full decodes,
        /// thumbnails and progressive previews alike. 100 by default: encoders
        /// write 1 (baseline) to about 12 (progressive); a hostile file of a few
        /// hundred kilobytes can declare thousands, each costing libjpeg a pass
        /// over the whole frame.
        public var maxScanCount: Int = 100

        /// The most 8×8 blocks a JPEG decode may entropy-decode, summed over its
        /// scans (each scan counts the blocks of the components it covers);
        /// more fail with ``ImageError/tooLarge(_:limit:actual:)``
        /// (``ImageError/LimitKind/scanBlocks``) before anything is decoded.
        /// It bounds the decoding work of one request whatever the mix of size
        /// and scan count. 50 million by default: 21 scans of every component of
        /// a 100-megapixel 4:2:0 image, or a little more than twice a standard
        /// progressive file of that size in 4:4:4 (libjpeg's 10-scan script
        /// codes each block about 5 times).
        public var maxScanBlockCount: Int = 50_000_000

        /// The decoded-bytes limit for ``scaleDownLargeImages``: 60 MiB by default, as SDWebImage.
        public var scaleDownLimitBytes: Int = 60 * 1024 * 1024

        /// Creates limits; every value has the default documented on its property.
        public init(
            maxPixelCount: Int = 100_000_000,
            maxDecodeMemoryBytes: Int = 512 * 1024 * 1024,
            maxAnimationPixelCount: Int = 1_000_000_000,
            maxScanCount: Int = 100,
            maxScanBlockCount: Int = 50_000_000,
            scaleDownLimitBytes: Int = 60 * 1024 * 1024
        ) {
            self.maxPixelCount = maxPixelCount
            self.maxDecodeMemoryBytes = maxDecodeMemoryBytes
            self.maxAnimationPixelCount = maxAnimationPixelCount
            self.maxScanCount = maxScanCount
            self.maxScanBlockCount = maxScanBlockCount
            self.scaleDownLimitBytes = scaleDownLimitBytes
        }
    }
}
