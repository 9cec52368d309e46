import CLcms2

/// One lcms2 transform from a source profile to sRGB, for one pixel layout.
///
/// Safe to share between threads (hence `@unchecked Sendable`): it is
/// created with `cmsFLAGS_NOCACHE`, so lcms2 keeps no per-call state in it
/// (since lcms2 2.3 `cmsDoTransform` copies the one-pixel cache into each
/// call anyway), and after creation it is only read, by lcms2 and by the
/// grey table. Every caller passes its own buffers. The handle is deleted
/// once, when the last reference (the cache's or a decode's) goes away.
///
/// Accuracy: lcms2's optimised 8-bit pipelines are exact enough for RGB
/// matrix-shaper profiles (within 1 of a 16-bit conversion) but not for the
/// steep dark end of sRGB after a grey curve or a CMYK lookup table (up to
/// 9 and 22 levels off). Grey therefore goes through a 256-entry table
/// computed once with the unoptimised pipeline, and CMYK through the
/// unoptimised pipeline itself (slower, about 0.5 µs a pixel; CMYK JPEGs
/// are rare print files).
final class ColorTransform: @unchecked Sendable {
    /// The lcms2 handle.
    private let handle: cmsHTRANSFORM
    /// The pixel layout the transform reads and writes.
    let layout: ColorPixelLayout
    /// For grey layouts: the converted value of each grey level.
    private let grayTable: [UInt8]?

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
    }

    deinit {
        cmsDeleteTransform(handle)
    }

    /// Converts `height` rows of `width` pixels; rows are `sourceStride` and
    /// `destinationStride` bytes apart. Alpha is copied unchanged.
    ///
    /// - Important: the buffers must not overlap and must hold every row.
    func apply(
        _ source: UnsafeRawPointer, sourceStride: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, height: Int
    ) {
        guard width > 0, height > 0 else { return }
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
