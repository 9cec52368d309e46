import CJxl
import Foundation
import AsyncWebImage

extension JXLCoder {
    /// How far a decode goes.
    enum Mode {
        /// The whole file: the first frame, or its DC for a small thumbnail.
        case final
        /// A download in progress: what the data so far renders, once it
        /// reaches more progressive steps than `after`.
        case preview(after: Int)
    }

    /// Decodes `bytes` as `mode` says; `nil` only for a preview with nothing new.
    ///
    /// The basic info is checked before libjxl gets an output buffer; the
    /// output is the image's own storage (no copy).
    static func decodeImage(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions, mode: Mode) throws(ImageError) -> (Image, steps: Int)? {
        let isFinal = if case .final = mode { true } else { false }
        let decoder = try JXLDecoderHandle(
            input: bytes, events: JxlDecoderStatus(JXL_DEC_FULL_IMAGE.rawValue | JXL_DEC_FRAME_PROGRESSION.rawValue), isComplete: isFinal
        )
        var size = PixelSize(width: 0, height: 0)
        var target: PixelSize?
        var orientation = Image.Orientation.up
        let check: (JxlBasicInfo) throws(ImageError) -> Void = { info throws(ImageError) in
            size = PixelSize(width: Int(info.xsize), height: Int(info.ysize))
            try options.checkPixelLimit(size)
            orientation = Image.Orientation(exifValue: Int(info.orientation.rawValue))
            target = options.targetSize(forStored: size, orientation: orientation)
            try options.checkDecodeMemory(bytes: size.pixelCount * JXLDecoderHandle.pixelFormat(for: info).0.bytesPerPixel)
        }
        // Up to the first frame's output buffer: header, colour, frame header.
        var status: JxlDecoderStatus
        repeat {
            status = try decoder.next(checkInfo: check)
            if status == JXL_DEC_NEED_MORE_INPUT {
                if isFinal { throw .undecodable(.jxl, "truncated: the data ends before the first frame") }
                return nil
            }
            if status == JXL_DEC_SUCCESS { throw .undecodable(.jxl, "no frame in the data") }
        } while status != JXL_DEC_NEED_IMAGE_OUT_BUFFER
        let (pixelFormat, jxlFormat) = JXLDecoderHandle.pixelFormat(for: decoder.info)
        // The DC (1:8) suffices for a thumbnail of at most an eighth a side.
        let usesDC = isFinal && target.map { $0.width * 8 <= size.width && $0.height * 8 <= size.height } ?? false
        var steps = 0
        var outcome: Result<Bool, ImageError> = .success(false)
        var image = Image.make(width: size.width, height: size.height, pixelFormat: pixelFormat, format: .jxl, isPreview: !isFinal) { out in
            outcome = Result { () throws(ImageError) -> Bool in
                var format = jxlFormat
                guard JxlDecoderSetImageOutBuffer(decoder.raw, &format, out.baseAddress, out.count) == JXL_DEC_SUCCESS else {
                    throw .undecodable(.jxl, "libjxl refused the output buffer")
                }
                while true {
                    switch try decoder.next(checkInfo: check) {
                    case JXL_DEC_FRAME_PROGRESSION:
                        steps += 1
                        if usesDC, JxlDecoderFlushImage(decoder.raw) == JXL_DEC_SUCCESS { return true }
                    case JXL_DEC_FULL_IMAGE:
                        steps += 1
                        return true
                    case JXL_DEC_NEED_MORE_INPUT:
                        guard !isFinal else { throw .undecodable(.jxl, "truncated: the data ends inside the first frame") }
                        guard case .preview(let after) = mode, steps > after,
                              JxlDecoderFlushImage(decoder.raw) == JXL_DEC_SUCCESS else { return false }
                        return true
                    case JXL_DEC_SUCCESS:
                        throw .undecodable(.jxl, "the first frame ended without its pixels")
                    default:
                        continue
                    }
                }
            }
        }
        guard try outcome.get() else { return nil }
        image = image.with(orientation: orientation)
        if let target, target != image.size { image = ImageResampler.resample(image, to: target) }
        if isFinal { image = ColorManager.manage(consume image, iccProfile: decoder.iccProfile, options: options) }
        return (options.applyOrientation ? image.applyingOrientation() : image, steps)
    }

    /// ``decode(_:options:)``'s body.
    static func decodeImage(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions, isComplete: Bool) throws(ImageError) -> Image {
        guard let (image, _) = try decodeImage(bytes, options: options, mode: .final) else {
            throw .undecodable(.jxl, "truncated: no frame")
        }
        return image
    }
}
