import CTurboJPEG

/// A DCT-domain scaling factor TurboJPEG can decode at (`num/denom`, 1/8 to 2).
///
/// Scaling inside the IDCT skips most of the work of a full decode (1/8
/// reads only the DC coefficient of each block), which is what makes JPEG
/// thumbnails cheap.
struct JPEGScale: Sendable, Hashable, CustomStringConvertible {
    /// Numerator of the factor.
    var numerator: Int
    /// Denominator of the factor.
    var denominator: Int

    /// No scaling.
    static let one = JPEGScale(numerator: 1, denominator: 1)

    /// The smallest factor: one pixel per 8×8 block, from the DC coefficient alone.
    static let eighth = JPEGScale(numerator: 1, denominator: 8)

    /// Two pixels a block side: the 2×2 reduced IDCT.
    static let quarter = JPEGScale(numerator: 1, denominator: 4)

    /// The factors TurboJPEG supports that shrink (≤ 1), smallest first.
    static let reducing: [JPEGScale] = {
        var count: Int32 = 0
        guard let list = tjGetScalingFactors(&count), count > 0 else { return [.one] }
        let factors = (0..<Int(count))
            .map { JPEGScale(numerator: Int(list[$0].num), denominator: Int(list[$0].denom)) }
            .filter { $0.numerator > 0 && $0.denominator > 0 && $0.numerator <= $0.denominator }
        return factors.sorted { $0.numerator * $1.denominator < $1.numerator * $0.denominator }
    }()

    /// The smallest supported factor whose output still covers `target` in
    /// both dimensions, so only a downscale (never an upscale) remains for
    /// the resampler; `.one` when none smaller does.
    static func smallestCovering(_ target: PixelSize, from size: PixelSize) -> JPEGScale {
        reducing.first { scale in
            let scaled = scale.apply(to: size)
            return scaled.width >= target.width && scaled.height >= target.height
        } ?? .one
    }

    /// The scale a thumbnail of `target` decodes at with `filter`.
    ///
    /// With ``ImageTransformers/Resize/Filter/area`` (the speed option) the
    /// smallest that covers the target. With the others, the smallest whose
    /// output is at least ``thumbnailGap`` times the target on both sides,
    /// so the final filter has room to work: DCT scaling keeps more
    /// aliasing than a Lanczos-3 reduction would.
    static func forThumbnail(_ target: PixelSize, from size: PixelSize, filter: ImageTransformers.Resize.Filter) -> JPEGScale {
        guard filter != .area else { return smallestCovering(target, from: size) }
        let wanted = PixelSize(
            width: Int((Double(target.width) * thumbnailGap).rounded(.up)),
            height: Int((Double(target.height) * thumbnailGap).rounded(.up))
        )
        return smallestCovering(wanted, from: size)
    }

    /// How much larger than a thumbnail its DCT-scaled decode is at least
    /// (except with `.area`, or when the full size is smaller).
    ///
    /// 1.9, not libvips's 2: a 12-megapixel 4:3 photo (4000 × 3000, 1.95×
    /// a 256-pixel thumbnail at 1/8) then decodes at 1/8, progressive files
    /// through ``JPEGReducedScaleTranscoder``, instead of a four times larger
    /// 1/4. Judged by the quality panel (`awi-bench --scenario
    /// thumbnail-quality`), 12 MP photos at 1/8 stayed within 0.3 points of
    /// pyvips (which decodes them at 1/4) under the area average, none more
    /// than 2 below; at 1.875× (3840 × 2160 at 1/8) files fell 2.5–3.3
    /// points behind, so those stay at 1/4.
    static let thumbnailGap = 1.9

    /// The size TurboJPEG produces at this factor (its `TJSCALED` macro: rounded up).
    func apply(to size: PixelSize) -> PixelSize {
        PixelSize(
            width: (size.width * numerator + denominator - 1) / denominator,
            height: (size.height * numerator + denominator - 1) / denominator
        )
    }

    var description: String { "\(numerator)/\(denominator)" }
}
