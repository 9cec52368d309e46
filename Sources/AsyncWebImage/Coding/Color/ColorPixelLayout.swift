import CLcms2

/// The pixel layouts colour management converts: a decoder's output
/// formats, plus the inverted CMYK TurboJPEG decodes Adobe JPEGs to.
enum ColorPixelLayout: Sendable, Hashable, CustomStringConvertible {
    case rgb, rgba, gray, grayAlpha
    /// Four bytes a pixel, 255 meaning no ink (see ``CMYKConverter``);
    /// converted to packed RGB.
    case invertedCMYK

    init(_ format: PixelFormat) {
        switch format {
        case .rgb8: self = .rgb
        case .rgba8: self = .rgba
        case .gray8: self = .gray
        case .grayAlpha8: self = .grayAlpha
        }
    }

    var isGray: Bool { self == .gray || self == .grayAlpha }
    var hasAlpha: Bool { self == .rgba || self == .grayAlpha }

    /// Bytes a source pixel occupies.
    var bytesPerPixel: Int {
        switch self {
        case .rgb: 3
        case .rgba, .invertedCMYK: 4
        case .gray: 1
        case .grayAlpha: 2
        }
    }

    /// Colour channels of a source pixel (alpha excluded).
    var colorChannels: Int {
        switch self {
        case .rgb, .rgba: 3
        case .gray, .grayAlpha: 1
        case .invertedCMYK: 4
        }
    }

    /// The ICC colour space a profile for these pixels must have.
    var profileColorSpace: cmsColorSpaceSignature {
        switch self {
        case .rgb, .rgba: cmsSigRgbData
        case .gray, .grayAlpha: cmsSigGrayData
        case .invertedCMYK: cmsSigCmykData
        }
    }

    var lcmsInputFormat: cmsUInt32Number {
        switch self {
        case .rgb: CLcms2_TYPE_RGB_8()
        case .rgba: CLcms2_TYPE_RGBA_8()
        case .gray: CLcms2_TYPE_GRAY_8()
        case .grayAlpha: CLcms2_TYPE_GRAYA_8()
        case .invertedCMYK: CLcms2_TYPE_CMYK_8_REV()
        }
    }

    var lcmsOutputFormat: cmsUInt32Number {
        self == .invertedCMYK ? CLcms2_TYPE_RGB_8() : lcmsInputFormat
    }

    var description: String {
        switch self {
        case .rgb: "RGB"
        case .rgba: "RGBA"
        case .gray: "grey"
        case .grayAlpha: "grey+alpha"
        case .invertedCMYK: "CMYK"
        }
    }
}
