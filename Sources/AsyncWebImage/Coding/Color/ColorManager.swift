package import Foundation

/// Colour management at decode: the one entry point every decoder calls at
/// the end of a full decode, with its image and what the file declared.
///
/// By default the pixels are converted to sRGB through a cached lcms2
/// transform (``ColorTransformCache``), on the calling (decode) thread, in
/// place when the decoder hands over the only reference to its image (else
/// into a new buffer of the same layout); alpha is copied unchanged; grey stays
/// grey (sRGB's tone curve). A profile equivalent to sRGB costs nothing per
/// pixel. With ``ImageDecodingOptions/keepsColorProfile`` the pixels are
/// kept and the profile attached to the image instead. A profile that cannot
/// be used leaves the pixels as they are and says why in
/// ``Image/colorConversion``; it never fails the decode.
package enum ColorManager {
    /// Applies `profile` to `image` as `options` ask; see the type's summary.
    ///
    /// - Parameters:
    ///   - image: a decoded image (any ``PixelFormat``), in the file's colour space.
    ///   - profile: what the file declared, or `nil` for nothing.
    static func manage(
        _ image: consuming Image,
        profile: EmbeddedColorProfile?,
        options: ImageDecodingOptions,
        cache: ColorTransformCache = .shared,
        usingFastPath: Bool = true,
        vectorized: Bool = true
    ) -> Image {
        let bytes: Data
        switch profile {
        case nil, .sRGB:
            return image
        case .unreadable(let reason):
            return image.with(colorProfile: nil, conversion: .skipped(reason: reason))
        case .icc(let data):
            bytes = data
        case .calibrated(let calibration):
            if calibration.isSRGBLike { return image }
            guard image.pixelFormat.isGray == false else {
                // gAMA on grey: a grey profile with that curve would do, but
                // PNG grey with gAMA is rare; left as sRGB grey.
                return image
            }
            guard let built = LcmsProfile.calibrated(calibration)?.serialized() else {
                return image.with(colorProfile: nil, conversion: .skipped(reason: "gAMA/cHRM values lcms2 cannot build a profile from"))
            }
            bytes = built
        }
        guard bytes.count <= options.maximumColorProfileBytes else {
            let reason = "the \(bytes.count)-byte ICC profile is larger than the \(options.maximumColorProfileBytes)-byte limit"
            return image.with(colorProfile: nil, conversion: .skipped(reason: reason))
        }
        switch cache.verdict(profile: bytes, layout: ColorPixelLayout(image.pixelFormat)) {
        case .identity:
            return image
        case .refused(let reason):
            return image.with(colorProfile: nil, conversion: .skipped(reason: reason))
        case .transform(let transform):
            if options.keepsColorProfile {
                return image.with(colorProfile: bytes, conversion: .kept)
            }
            return convert(image, through: transform, usingFastPath: usingFastPath, vectorized: vectorized)
        }
    }

    /// The entry point for decoders that have only ICC bytes (WebP `ICCP`,
    /// AVIF/HEIC `colr`): `nil` for none.
    package static func manage(
        _ image: consuming Image,
        iccProfile: Data?,
        options: ImageDecodingOptions,
        cache: ColorTransformCache = .shared
    ) -> Image {
        manage(image, profile: iccProfile.map(EmbeddedColorProfile.icc), options: options, cache: cache)
    }

    /// The transform a decoder may apply in place, inside the pixel buffer
    /// it has just filled, instead of calling ``manage(_:profile:options:cache:usingFastPath:)``
    /// afterwards: for an ICC profile whose verdict is a transform with a
    /// fast path (``MatrixShaperKernel``, which reads each pixel before
    /// writing it), when the options convert. `nil` otherwise — then the
    /// decoder calls `manage` as usual, which also handles every other case.
    ///
    /// Converting in place saves a second buffer as large as the image: for
    /// a 12 MP RGB photo, 36 MB that glibc maps afresh (above its 32 MiB
    /// mmap ceiling) and the kernel faults in and zeroes page by page.
    static func inPlaceTransform(
        profile: EmbeddedColorProfile?, layout: ColorPixelLayout, options: ImageDecodingOptions,
        cache: ColorTransformCache = .shared
    ) -> ColorTransform? {
        guard !options.keepsColorProfile, layout == .rgb || layout == .rgba,
              case .icc(let bytes)? = profile, bytes.count <= options.maximumColorProfileBytes,
              case .transform(let transform) = cache.verdict(profile: bytes, layout: layout), transform.fastPath != nil
        else { return nil }
        return transform
    }

    /// `image`'s pixels through `transform`: in place when `image` holds the
    /// only reference to its pixels (a decoder's fresh image; no second
    /// buffer as large as the image, which glibc maps afresh above 32 MiB
    /// and the kernel faults in and zeroes page by page), else into a new,
    /// packed buffer (an image someone else also holds).
    static func convert(
        _ image: consuming Image, through transform: ColorTransform, usingFastPath: Bool = true, vectorized: Bool = true
    ) -> Image {
        let (width, height, stride) = (image.width, image.height, image.bytesPerRow)
        if transform.convertsInPlace, image.rewritingUniquelyOwnedPixels({ pixels in
            transform.apply(
                pixels.baseAddress!, sourceStride: stride, into: pixels.baseAddress!, destinationStride: stride,
                width: width, height: height, usingFastPath: usingFastPath, vectorized: vectorized
            )
        }) {
            return image.with(colorProfile: nil, conversion: .converted)
        }
        let converted = image.withUnsafeBytes { source in
            Image.make(
                width: image.width, height: image.height, pixelFormat: image.pixelFormat,
                orientation: image.orientation, format: image.format, isPreview: image.isPreview
            ) { destination in
                transform.apply(
                    source.baseAddress!, sourceStride: image.bytesPerRow,
                    into: destination.baseAddress!, destinationStride: image.width * image.pixelFormat.bytesPerPixel,
                    width: image.width, height: image.height, usingFastPath: usingFastPath, vectorized: vectorized
                )
            }
        }
        return converted.with(colorProfile: nil, conversion: .converted)
    }

    /// How a CMYK JPEG's pixels become RGB: through its CMYK profile when it
    /// has a usable one, else by ``CMYKConverter``'s naive formula.
    enum CMYKPlan {
        /// No profile: the naive formula, ``Image/ColorConversion/none``.
        case naive
        /// Through the profile.
        case transform(ColorTransform)
        /// A profile that cannot be used: the naive formula, and the reason.
        case refused(String)

        /// The image's ``Image/colorConversion`` after this plan.
        var conversion: Image.ColorConversion {
            switch self {
            case .naive: .none
            case .transform: .converted
            case .refused(let reason): .skipped(reason: reason)
            }
        }
    }

    /// The plan for a CMYK JPEG carrying `profile` (CMYK pixels are always
    /// converted: ``PixelFormat`` has no CMYK to keep them in).
    static func cmykPlan(profile: EmbeddedColorProfile?, options: ImageDecodingOptions, cache: ColorTransformCache = .shared) -> CMYKPlan {
        switch profile {
        case nil, .sRGB, .calibrated:
            return .naive
        case .unreadable(let reason):
            return .refused(reason)
        case .icc(let bytes):
            guard bytes.count <= options.maximumColorProfileBytes else {
                return .refused("the \(bytes.count)-byte ICC profile is larger than the \(options.maximumColorProfileBytes)-byte limit")
            }
            switch cache.verdict(profile: bytes, layout: .invertedCMYK) {
            case .transform(let transform): return .transform(transform)
            case .refused(let reason): return .refused(reason)
            case .identity: return .naive // not produced for CMYK
            }
        }
    }
}
