import CLcms2
import Foundation

/// Owns one lcms2 profile handle; closed when the last reference goes.
///
/// Not `Sendable`: a profile lives only while a transform is being made
/// (lcms2 copies what a transform needs out of its profiles).
final class LcmsProfile {
    /// The lcms2 handle.
    let handle: cmsHPROFILE

    private init(_ handle: cmsHPROFILE) {
        self.handle = handle
    }

    deinit {
        cmsCloseProfile(handle)
    }

    /// The profile in `bytes`, or `nil` when lcms2 cannot parse it (lcms2
    /// checks the header, the tag table and every tag it reads against the
    /// buffer's end).
    convenience init?(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count >= 132, bytes.count <= Int(UInt32.max),
              let handle = cmsOpenProfileFromMem(base, UInt32(bytes.count))
        else { return nil }
        self.init(handle)
    }

    /// lcms2's built-in sRGB (IEC 61966-2.1): the target of every conversion.
    ///
    /// Marked as an ICC v2 profile, as the sRGB profiles of other tools are:
    /// lcms2 builds v4 ones, and perceptual conversions into a v4 profile
    /// map black to v4's reference medium, lifting every dark tone a little
    /// away from what ImageMagick or a browser shows.
    static func sRGB() -> LcmsProfile? {
        guard let handle = cmsCreate_sRGBProfile() else { return nil }
        cmsSetProfileVersion(handle, 2.1)
        return LcmsProfile(handle)
    }

    /// A grey profile with the sRGB tone curve and a D65 white: where grey
    /// pixels go, so that they stay one channel and read as sRGB greys.
    static func sRGBGray() -> LcmsProfile? {
        guard let curve = sRGBToneCurve() else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = d65
        guard let handle = cmsCreateGrayProfile(&white, curve) else { return nil }
        cmsSetProfileVersion(handle, 2.1)
        return LcmsProfile(handle)
    }

    /// An RGB profile from a PNG's `gAMA`/`cHRM` values (sRGB's primaries
    /// and white point, or its tone curve, for whichever is missing).
    static func calibrated(_ calibration: PNGCalibration) -> LcmsProfile? {
        let curve: OpaquePointer?
        if let gamma = calibration.gamma {
            // gAMA holds the encoding exponent; the profile's curve decodes.
            guard gamma.isFinite, gamma > 0.01, gamma < 100 else { return nil }
            curve = cmsBuildGamma(nil, 1 / gamma)
        } else {
            curve = sRGBToneCurve()
        }
        guard let curve else { return nil }
        defer { cmsFreeToneCurve(curve) }
        let c = calibration.chromaticities
        var white = c.map { xyY($0.white) } ?? d65
        var primaries = cmsCIExyYTRIPLE(
            Red: c.map { xyY($0.red) } ?? xyY((0.64, 0.33)),
            Green: c.map { xyY($0.green) } ?? xyY((0.30, 0.60)),
            Blue: c.map { xyY($0.blue) } ?? xyY((0.15, 0.06))
        )
        var curves: [OpaquePointer?] = [curve, curve, curve]
        return curves.withUnsafeMutableBufferPointer { pointer in
            cmsCreateRGBProfile(&white, &primaries, pointer.baseAddress).map(LcmsProfile.init)
        }
    }

    /// sRGB's primaries and white with linear tone curves (ICC v2): where
    /// ``MatrixShaperKernel`` asks lcms2 for its matrix, in linear light.
    static func linearSRGB() -> LcmsProfile? {
        guard let curve = cmsBuildGamma(nil, 1) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = d65
        var primaries = cmsCIExyYTRIPLE(Red: xyY((0.64, 0.33)), Green: xyY((0.30, 0.60)), Blue: xyY((0.15, 0.06)))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = curves.withUnsafeMutableBufferPointer { pointer in
            cmsCreateRGBProfile(&white, &primaries, pointer.baseAddress).map(LcmsProfile.init)
        }
        if let profile { cmsSetProfileVersion(profile.handle, 2.1) }
        return profile
    }

    /// For an RGB profile lcms2 would use as a matrix and three tone curves
    /// (colorant and TRC tags, no `A2B0`/`D2B0` lookup table, which lcms2
    /// prefers for the perceptual intent): the red, green and blue curves.
    /// `nil` for every other profile.
    ///
    /// - Important: the curves belong to the profile; use them while it lives.
    var matrixShaperCurves: [OpaquePointer]? {
        guard colorSpace == cmsSigRgbData, cmsIsMatrixShaper(handle) != 0,
              cmsIsCLUT(handle, cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(LCMS_USED_AS_INPUT)) == 0,
              cmsIsTag(handle, cmsSigDToB0Tag) == 0
        else { return nil }
        let tags = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]
        let curves = tags.compactMap { cmsReadTag(handle, $0).map(OpaquePointer.init) }
        return curves.count == 3 ? curves : nil
    }

    /// The profile's colour space signature (`'RGB '`, `'GRAY'`, `'CMYK'`…).
    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// The profile serialised as ICC bytes, or `nil` if lcms2 cannot write it.
    func serialized() -> Data? {
        var needed: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(handle, nil, &needed) != 0, needed > 0 else { return nil }
        var data = Data(count: Int(needed))
        let saved = data.withUnsafeMutableBytes { cmsSaveProfileToMem(handle, $0.baseAddress, &needed) != 0 }
        return saved ? data.prefix(Int(needed)) : nil
    }

    /// CIE xy of D65, sRGB's white.
    private static let d65 = xyY((0.3127, 0.3290))

    private static func xyY(_ point: (x: Double, y: Double)) -> cmsCIExyY {
        cmsCIExyY(x: point.x, y: point.y, Y: 1)
    }

    /// IEC 61966-2.1's curve as lcms2's parametric type 4.
    private static func sRGBToneCurve() -> OpaquePointer? {
        let parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        return cmsBuildParametricToneCurve(nil, 4, parameters)
    }
}
