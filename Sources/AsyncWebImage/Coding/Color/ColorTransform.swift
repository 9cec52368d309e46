import CLcms2

/// One lcms2 transform from a source profile to sRGB, for one pixel layout.
///
/// Safe to share between threads (hence `@unchecked Sendable`): it is
/// created with `cmsFLAGS_NOCACHE`, so lcms2 keeps no per-call state in it
/// (since lcms2 2.3 `cmsDoTransform` copies the one-pixel cache into each
/// call anyway), and after creation it is only read, by lcms2, by the
/// grey table and by the fast-path kernel (a `Sendable` value of immutable
/// tables); every stored property is a `let`. Every caller passes its own buffers. The handle is deleted
/// once, when the last reference (the cache's or a decode's) goes away.
///
/// Accuracy: lcms2's optimised 8-bit pipelines are exact enough for RGB
/// matrix-shaper profiles (within 1 of a 16-bit conversion) but not for the
/// steep dark end of sRGB after a grey curve or a CMYK lookup table (up to
/// 9 and 22 levels off). Grey therefore goes through a 256-entry table
/// computed once with the unoptimised pipeline, and CMYK through the
/// unoptimised pipeline itself (slower, about 0.5 µs a pixel; CMYK JPEGs
/// are rare print files).
///
/// RGB matrix/TRC profiles (most photo profiles) convert through
/// ``MatrixShaperKernel`` instead of lcms2 when it reproduces lcms2's
/// transform within one level on a grid of colours (checked once, here).
final class ColorTransform: @unchecked Sendable {
    /// The lcms2 handle.
    private let handle: cmsHTRANSFORM
    /// The pixel layout the transform reads and writes.
    let layout: ColorPixelLayout
    /// For grey layouts: the converted value of each grey level.
    private let grayTable: [UInt8]?
    /// For RGB layouts: the fast path, when it matches lcms2.
    let fastPath: MatrixShaperKernel?
    /// The largest channel difference between the fast path and lcms2 on
    /// ``fastPathProbe`` (whether or not it was within the tolerance), or
    /// `nil` when the profile has no fast path.
    let fastPathDifference: Int?

    /// A transform from `source` to sRGB (or sRGB grey, for grey layouts),
    /// perceptual intent, or `nil` when lcms2 refuses the pair.
    init?(from source: LcmsProfile, layout: ColorPixelLayout) {
        let target = layout.isGray ? LcmsProfile.sRGBGray() : LcmsProfile.sRGB()
        guard let target else { return nil }
        var flags = CLcms2_FLAGS_NOCACHE()
        if layout.hasAlpha { flags |= CLcms2_FLAGS_COPY_ALPHA() }
        if layout.isGray || layout == .invertedCMYK { flags |= CLcms2_FLAGS_NOOPTIMIZE() }
        let input = layout.isGray ? CLcms2_TYPE_GRAY_8() : layout.lcmsInputFormat
        let output = layout.isGray ? CLcms2_TYPE_GRAY_8() : layout.lcmsOutputFormat
        guard let handle = cmsCreateTransform(
            source.handle, input, target.handle, output, cmsUInt32Number(INTENT_PERCEPTUAL), flags
        ) else { return nil }
        self.handle = handle
        self.layout = layout
        if layout.isGray {
            let levels = (0...255).map { UInt8($0) }
            var table = [UInt8](repeating: 0, count: 256)
            levels.withUnsafeBytes { source in
                table.withUnsafeMutableBytes { cmsDoTransform(handle, source.baseAddress, $0.baseAddress, 256) }
            }
            grayTable = table
        } else {
            grayTable = nil
        }
        if layout == .rgb || layout == .rgba, let kernel = MatrixShaperKernel(source: source) {
            let difference = Self.largestDifference(kernel, handle: handle, layout: layout)
            fastPathDifference = difference
            fastPath = difference <= 1 ? kernel : nil
        } else {
            fastPathDifference = nil
            fastPath = nil
        }
    }

    /// The colours the fast path is checked on: every grey, ramps of the
    /// primaries and secondaries, and an 18×18×18 cube (steps of 15).
    static let fastPathProbe: [UInt8] = {
        var colors: [UInt8] = []
        for level in 0...255 {
            let v = UInt8(level)
            colors += [v, v, v, v, 0, 0, 0, v, 0, 0, 0, v, v, v, 0, 0, v, v, v, 0, v]
        }
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) { colors += [UInt8(r), UInt8(g), UInt8(b)] }
            }
        }
        return colors
    }()

    /// The largest channel difference between `kernel` and lcms2's
    /// transform `handle` over ``fastPathProbe``.
    private static func largestDifference(_ kernel: MatrixShaperKernel, handle: cmsHTRANSFORM, layout: ColorPixelLayout) -> Int {
        let step = layout.bytesPerPixel, count = fastPathProbe.count / 3
        var probe = [UInt8](repeating: 255, count: count * step)
        for index in 0..<count {
            for channel in 0..<3 { probe[index * step + channel] = fastPathProbe[index * 3 + channel] }
        }
        var fast = probe, lcms = probe
        probe.withUnsafeBytes { source in
            fast.withUnsafeMutableBytes { destination in
                kernel.apply(
                    source.baseAddress!, sourceStride: 0, into: destination.baseAddress!, destinationStride: 0,
                    width: count, height: 1, bytesPerPixel: step
                )
            }
            lcms.withUnsafeMutableBytes { cmsDoTransform(handle, source.baseAddress, $0.baseAddress, cmsUInt32Number(count)) }
        }
        return zip(fast, lcms).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    deinit {
        cmsDeleteTransform(handle)
    }

    /// Whether source and destination may be one buffer: when a pixel is
    /// as large written as read (every layout but CMYK → RGB). The fast
    /// path and the grey table read each pixel before writing it, and
    /// lcms2 unpacks each pixel before packing its result, which its
    /// maintainer confirms is safe for equal pixel sizes (Little-CMS issue #93).
    var convertsInPlace: Bool { layout != .invertedCMYK }

    /// Converts `height` rows of `width` pixels; rows are `sourceStride` and
    /// `destinationStride` bytes apart. Alpha is copied unchanged.
    ///
    /// - Parameters:
    ///   - usingFastPath: `false` to convert through lcms2 even when the
    ///     profile has a fast path (to compare them).
    ///   - vectorized: `false` to keep the fast path to its scalar loop
    ///     (``MatrixShaperKernel/hasVectorPath``), to compare the two.
    /// - Important: the buffers must hold every row and must not overlap,
    ///   except that when ``convertsInPlace`` (and with the same stride)
    ///   they may be the same buffer.
    func apply(
        _ source: UnsafeRawPointer, sourceStride: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, height: Int, usingFastPath: Bool = true, vectorized: Bool = true
    ) {
        guard width > 0, height > 0 else { return }
        if usingFastPath, let fastPath {
            fastPath.apply(
                source, sourceStride: sourceStride, into: destination, destinationStride: destinationStride,
                width: width, height: height, bytesPerPixel: layout.bytesPerPixel, vectorized: vectorized
            )
            return
        }
        if let grayTable {
            let step = layout.bytesPerPixel
            grayTable.withUnsafeBufferPointer { table in
                for row in 0..<height {
                    let input = (source + row * sourceStride).assumingMemoryBound(to: UInt8.self)
                    let output = (destination + row * destinationStride).assumingMemoryBound(to: UInt8.self)
                    for index in stride(from: 0, to: width * step, by: step) {
                        output[index] = table[Int(input[index])]
                        if step == 2 { output[index + 1] = input[index + 1] }
                    }
                }
            }
            return
        }
        cmsDoTransformLineStride(
            handle, source, destination, cmsUInt32Number(width), cmsUInt32Number(height),
            cmsUInt32Number(sourceStride), cmsUInt32Number(destinationStride), 0, 0
        )
    }
}
