/// Turns the CMYK samples TurboJPEG decodes from CMYK and YCCK JPEGs into RGB.
///
/// The convention is Adobe's, as Photoshop (and ImageMagick, and every
/// CMYK JPEG with an Adobe APP14 marker) writes it: samples are stored
/// *inverted*, 255 meaning no ink. libjpeg undoes the YCCK transform itself
/// (YCC → inverted CMY; K passes through), so both colour spaces reach us as
/// inverted CMYK, and with `c = 255 − C` etc. the naive conversion
/// `R = (1 − C)(1 − K)` becomes simply `R = c·k / 255`.
///
/// This is the conversion djpeg applies (libjpeg-turbo's `cmyk.h`) and, to
/// within ±1, what ImageMagick produces reading the same files
/// (`make-jpeg-fixtures.sh` checks both), so the tests compare exactly
/// against djpeg's output. It is used for CMYK JPEGs without a usable ICC
/// profile; one with a CMYK profile is converted through it to sRGB
/// (``convert(_:to:size:plan:)``, ``ColorManager/cmykPlan(profile:options:cache:)``).
enum CMYKConverter {
    /// Converts packed inverted CMYK `source` of `size` into packed RGB as
    /// `plan` says: through an lcms2 transform, or with ``convert(_:to:count:)``.
    static func convert(_ source: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer, size: PixelSize, plan: ColorManager.CMYKPlan) {
        guard case .transform(let transform) = plan else {
            convert(source, to: destination, count: size.pixelCount)
            return
        }
        precondition(source.count >= size.pixelCount * 4 && destination.count >= size.pixelCount * 3)
        guard size.pixelCount > 0, let input = source.baseAddress, let output = destination.baseAddress else { return }
        transform.apply(input, sourceStride: size.width * 4, into: output, destinationStride: size.width * 3, width: size.width, height: size.height)
    }

    /// Converts `count` packed CMYK pixels from `source` into packed RGB in
    /// `destination` (which may not overlap it).
    ///
    /// - Complexity: O(count), three multiplies per pixel, no division.
    static func convert(_ source: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer, count: Int) {
        precondition(source.count >= count * 4 && destination.count >= count * 3)
        guard count > 0, let input = source.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let output = destination.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return }
        for pixel in 0..<count {
            let s = input + pixel * 4
            let d = output + pixel * 3
            let k = UInt32(s[3])
            d[0] = divideBy255Rounded(UInt32(s[0]) * k)
            d[1] = divideBy255Rounded(UInt32(s[1]) * k)
            d[2] = divideBy255Rounded(UInt32(s[2]) * k)
        }
    }

    /// `round(x / 255)` for `x` in 0...65025 (a product of two bytes),
    /// exact, with shifts instead of a division: `(x + 127) / 255` computed
    /// as `(y + 1 + y >> 8) >> 8`, which equals `y / 255` for y < 65790.
    @inline(__always)
    static func divideBy255Rounded(_ x: UInt32) -> UInt8 {
        let y = x + 127
        return UInt8(truncatingIfNeeded: (y + 1 + (y >> 8)) >> 8)
    }
}
