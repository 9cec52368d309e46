import CAvif
import AsyncWebImage

extension AVIFCoder {
    /// Luma rows converted to RGB at a time: about 2 MiB of RGBA however
    /// wide the image, never fewer than 16 (even, so that every band
    /// starts on a chroma row).
    static func bandRows(width: Int) -> Int {
        max(16, (1 << 21) / max(1, width * 4)) & ~1
    }

    /// Converts the decoded YUV planes to RGB a band of rows at a time,
    /// each band straight into a ``StreamingResampler`` to `target`, so that
    /// the full-size RGB image never exists: the thumbnail of an image costs
    /// its YUV planes (inherent to AV1) and the thumbnail, not 4 bytes a pixel
    /// more.
    ///
    /// Each band is a libavif view of the planes (`avifImageSetViewRect`)
    /// that reaches 2 luma rows (one chroma row) past the band on each side,
    /// converted by `avifImageYUVToRGB` exactly as the whole image is; the
    /// extra rows are dropped. libavif's chroma upsampling (bilinear, libyuv's
    /// or its own) reads only the neighbouring chroma row, so every kept row
    /// is the row a whole-image conversion gives, and the result equals the
    /// whole image converted and resampled by ``ImageResampler``.
    ///
    /// - Parameters:
    ///   - region: the rows and columns to keep (the clean aperture, or the whole image).
    ///   - band: luma rows converted at a time, even and at least 2.
    /// - Returns: `nil` when the streaming resampler cannot do it (the
    ///   caller converts the whole image then).
    /// - Throws: ``ImageError/undecodable(_:_:)`` with libavif's message.
    static func convertResampling(
        _ image: UnsafeMutablePointer<avifImage>, region: PixelRect, target: PixelSize, options: ImageDecodingOptions = .init(),
        hasAlpha: Bool, bandRows band: Int
    ) throws(ImageError) -> Image? {
        let pixelFormat: PixelFormat = hasAlpha ? .rgba8 : .rgb8
        guard var resampler = options.thumbnailResampler(
            sourceWidth: region.width, sourceHeight: region.height, to: target, pixelFormat: pixelFormat
        ) else { return nil }
        guard let view = avifImageCreateEmpty() else { throw .undecodable(.avif, "libavif could not allocate an image view") }
        defer { avifImageDestroy(view) }
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        let rowBytes = width * pixelFormat.bytesPerPixel
        // The band plus the context rows on both sides.
        var rgbRows = [UInt8](repeating: 0, count: (band + 4) * rowBytes)
        var outcome = AVIF_RESULT_OK
        let result = Image.make(width: target.width, height: target.height, pixelFormat: pixelFormat, format: .avif) { output in
            rgbRows.withUnsafeMutableBufferPointer { rows in
                guard let rows = rows.baseAddress else { return }
                var top = region.y
                let end = region.y + region.height
                // One pass per band: the count bounds the loop.
                for _ in 0..<((region.height + band - 1) / band) where top < end && outcome == AVIF_RESULT_OK {
                    let bottom = min(end, top + band)
                    let viewTop = max(0, top - 2) & ~1
                    let viewBottom = min(height, bottom + 2)
                    var rect = avifCropRect(x: 0, y: UInt32(viewTop), width: UInt32(width), height: UInt32(viewBottom - viewTop))
                    outcome = avifImageSetViewRect(view, image, &rect)
                    guard outcome == AVIF_RESULT_OK else { return }
                    var rgb = avifRGBImage()
                    avifRGBImageSetDefaults(&rgb, view)
                    rgb.depth = 8
                    rgb.format = hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
                    rgb.alphaPremultiplied = AVIF_FALSE
                    rgb.pixels = rows
                    rgb.rowBytes = UInt32(rowBytes)
                    outcome = avifImageYUVToRGB(view, &rgb)
                    guard outcome == AVIF_RESULT_OK else { return }
                    for y in top..<bottom {
                        resampler.add(row: rows + (y - viewTop) * rowBytes + region.x * pixelFormat.bytesPerPixel, output: output)
                    }
                    top = bottom
                }
            }
        }
        guard outcome == AVIF_RESULT_OK else {
            throw .undecodable(.avif, "YUV to RGB: " + AVIFCoder.message(outcome, diagnostics: nil))
        }
        return result
    }
}
