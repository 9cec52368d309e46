import CJxl
import Foundation
import AsyncWebImage

extension JXLCoder {
    /// Encodes with libjxl; see ``encode(_:as:quality:)``.
    static func encodeImage(_ image: Image, quality: Double, effort: Int) throws(ImageError) -> Data {
        guard let encoder = JxlEncoderCreate(nil) else { throw .encodingFailed(.jxl, "libjxl could not allocate an encoder") }
        defer { JxlEncoderDestroy(encoder) }
        func check(_ status: JxlEncoderStatus, _ stage: String) throws(ImageError) {
            guard status == JXL_ENC_SUCCESS else { throw .encodingFailed(.jxl, "libjxl failed: \(stage)") }
        }
        let lossless = quality >= 1
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(clamping: image.width)
        info.ysize = UInt32(clamping: image.height)
        info.bits_per_sample = 8
        info.num_color_channels = image.pixelFormat.isGray ? 1 : 3
        info.alpha_bits = image.pixelFormat.hasAlpha ? 8 : 0
        info.num_extra_channels = image.pixelFormat.hasAlpha ? 1 : 0
        info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE
        info.orientation = JxlOrientation(rawValue: UInt32(image.orientation.rawValue))
        try check(JxlEncoderSetBasicInfo(encoder, &info), "basic info")
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, image.pixelFormat.isGray ? JXL_TRUE : JXL_FALSE)
        try check(JxlEncoderSetColorEncoding(encoder, &color), "colour encoding")
        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else { throw .encodingFailed(.jxl, "no frame settings") }
        try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), "effort")
        if lossless {
            try check(JxlEncoderSetFrameLossless(settings, JXL_TRUE), "lossless")
        } else {
            try check(JxlEncoderSetFrameDistance(settings, distance(forQuality: quality)), "distance")
        }
        var format = JxlPixelFormat(
            num_channels: UInt32(image.pixelFormat.bytesPerPixel), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN,
            align: image.bytesPerRow
        )
        let added = image.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try check(added, "adding the frame")
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 64 << 10)
        var written = 0
        while true {
            var next: UnsafeMutablePointer<UInt8>?
            var available = 0
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                next = buffer.baseAddress! + written
                available = buffer.count - written
                return JxlEncoderProcessOutput(encoder, &next, &available)
            }
            written = output.count - available
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw .encodingFailed(.jxl, "libjxl failed: processing output") }
            output += [UInt8](repeating: 0, count: output.count)
        }
        return Data(output.prefix(written))
    }
}
