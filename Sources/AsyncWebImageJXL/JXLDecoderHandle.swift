import CJxl
import Foundation
import AsyncWebImage

/// Owns one libjxl decoder for one decode: the events it reports, the
/// basic info and colour profile it read, and the output buffer it fills.
///
/// A class (not `Sendable`) so the decoder is destroyed exactly once. The
/// input is the caller's buffer, which must outlive the handle.
final class JXLDecoderHandle {
    let raw: OpaquePointer
    private(set) var info = JxlBasicInfo()
    /// The ICC profile of the pixels libjxl returns (`JXL_COLOR_PROFILE_TARGET_DATA`).
    private(set) var iccProfile: Data?

    /// A decoder over `input` that reports `events`, keeps the stored
    /// orientation (it is reported, not applied) and straight alpha.
    ///
    /// - Parameter isComplete: whether `input` is the whole file (else
    ///   running out of it is a pause, for previews).
    init(input: UnsafeRawBufferPointer, events: JxlDecoderStatus, isComplete: Bool) throws(ImageError) {
        guard let base = input.baseAddress, !input.isEmpty else { throw .undecodable(.jxl, "no data") }
        guard let raw = JxlDecoderCreate(nil) else { throw .undecodable(.jxl, "libjxl could not allocate a decoder") }
        self.raw = raw
        let subscribed = events.rawValue | JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue
        guard JxlDecoderSubscribeEvents(raw, Int32(subscribed)) == JXL_DEC_SUCCESS,
              JxlDecoderSetKeepOrientation(raw, JXL_TRUE) == JXL_DEC_SUCCESS,
              JxlDecoderSetUnpremultiplyAlpha(raw, JXL_TRUE) == JXL_DEC_SUCCESS,
              JxlDecoderSetInput(raw, base.assumingMemoryBound(to: UInt8.self), input.count) == JXL_DEC_SUCCESS
        else { throw .undecodable(.jxl, "libjxl refused the decoder settings") }
        if isComplete { JxlDecoderCloseInput(raw) }
    }

    deinit {
        JxlDecoderDestroy(raw)
    }

    /// Runs the decoder to its next event, reading the basic info and
    /// colour profile on the way (they are always subscribed), and
    /// calling `checkInfo` once the basic info is known, before any
    /// pixel buffer.
    func next(checkInfo: (JxlBasicInfo) throws(ImageError) -> Void) throws(ImageError) -> JxlDecoderStatus {
        while true {
            let status = JxlDecoderProcessInput(raw)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(raw, &info) == JXL_DEC_SUCCESS else { throw .undecodable(.jxl, "no basic info") }
                try checkInfo(info)
            case JXL_DEC_COLOR_ENCODING:
                // JPEG XL signals common colour spaces as an enum: sRGB needs no
                // profile (libjxl's synthesised ICC for it is not byte-equal to
                // the system's, and converting through it would move pixels).
                var encoding = JxlColorEncoding()
                if JxlDecoderGetColorAsEncodedProfile(raw, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
                   Self.isSRGB(encoding) {
                    continue
                }
                var size = 0
                if JxlDecoderGetICCProfileSize(raw, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0, size <= 4 << 20 {
                    var bytes = [UInt8](repeating: 0, count: size)
                    if JxlDecoderGetColorAsICCProfile(raw, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, size) == JXL_DEC_SUCCESS {
                        iccProfile = Data(bytes)
                    }
                }
            case JXL_DEC_ERROR:
                throw .undecodable(.jxl, "libjxl could not decode the data")
            default:
                return status
            }
        }
    }

    /// Whether `encoding` is sRGB (or grey with sRGB's white point and
    /// transfer curve): pixels already in the colour space of the output.
    static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        let colour = encoding.color_space == JXL_COLOR_SPACE_RGB && encoding.primaries == JXL_PRIMARIES_SRGB
        return (colour || encoding.color_space == JXL_COLOR_SPACE_GRAY)
            && encoding.white_point == JXL_WHITE_POINT_D65 && encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
    }

    /// The output format for `info`: 8-bit grey or RGB, with alpha when it has some.
    static func pixelFormat(for info: JxlBasicInfo) -> (PixelFormat, JxlPixelFormat) {
        let gray = info.num_color_channels == 1
        let alpha = info.alpha_bits > 0
        let format: PixelFormat = gray ? (alpha ? .grayAlpha8 : .gray8) : (alpha ? .rgba8 : .rgb8)
        return (format, JxlPixelFormat(num_channels: UInt32(format.bytesPerPixel), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0))
    }
}
