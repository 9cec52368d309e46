extension Image {
    /// The most pixels a built-in ``ImageTransformer`` will produce:
    /// 100 megapixels (400 MB as `rgba8`), the decoders' default limit.
    /// Larger results fail with ``ImageError/transformFailed(key:reason:)``.
    public static let maximumTransformPixelCount = 100_000_000

    /// The image in display coordinates, as every built-in transformer sees it.
    func uprightForTransform() -> Image {
        orientation == .up ? self : applyingOrientation()
    }

    /// Throws unless `width × height` is a non-empty size within
    /// ``maximumTransformPixelCount``.
    static func checkTransformSize(width: Int, height: Int, key: String) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .transformFailed(key: key, reason: "empty output size \(width)×\(height)")
        }
        let count = PixelSize(width: width, height: height).pixelCount
        guard count <= maximumTransformPixelCount else {
            throw .transformFailed(
                key: key, reason: "output \(width)×\(height) exceeds \(maximumTransformPixelCount) pixels"
            )
        }
    }

    /// The same metadata with new pixels: what transformers return (always `.up`).
    static func makeTransformed(
        like image: Image, width: Int, height: Int, pixelFormat: PixelFormat,
        fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> Image {
        try Image.make(
            width: width, height: height, pixelFormat: pixelFormat, orientation: .up,
            format: image.format, isPreview: image.isPreview, fill: fill
        )
    }

    /// The pixels converted to `target`, or `self` when already in it.
    ///
    /// Gray becomes colour by copying the luma to red, green and blue; colour
    /// becomes gray by Rec. 709 luma; an added alpha channel is opaque; a
    /// dropped alpha channel is discarded (colours are kept, not matted).
    public func converted(to target: PixelFormat) -> Image {
        if pixelFormat == target { return self }
        let source = pixelFormat
        let (w, h, stride) = (width, height, bytesPerRow)
        return withUnsafeBytes { input in
            Image.make(
                width: w, height: h, pixelFormat: target, orientation: orientation,
                format: format, isPreview: isPreview
            ) { output in
                guard let src = input.baseAddress, let dst = output.baseAddress else { return }
                for y in 0..<h {
                    Image.convertRow(
                        (src + y * stride).assumingMemoryBound(to: UInt8.self), source,
                        into: (dst + y * w * target.bytesPerPixel).assumingMemoryBound(to: UInt8.self), target, count: w
                    )
                }
            }
        }
    }

    /// Converts `count` pixels from `source` to `target` layout (see ``converted(to:)``).
    static func convertRow(
        _ src: UnsafePointer<UInt8>, _ source: PixelFormat,
        into dst: UnsafeMutablePointer<UInt8>, _ target: PixelFormat, count: Int
    ) {
        switch (source, target) {
        case _ where source == target:
            dst.update(from: src, count: count * source.bytesPerPixel)
        case (.rgb8, .rgba8):
            for x in 0..<count {
                let s = x &* 3, d = x &* 4
                dst[d] = src[s]; dst[d &+ 1] = src[s &+ 1]; dst[d &+ 2] = src[s &+ 2]; dst[d &+ 3] = 255
            }
        case (.gray8, .rgba8):
            for x in 0..<count {
                let v = src[x], d = x &* 4
                dst[d] = v; dst[d &+ 1] = v; dst[d &+ 2] = v; dst[d &+ 3] = 255
            }
        case (.grayAlpha8, .rgba8):
            for x in 0..<count {
                let v = src[x &* 2], d = x &* 4
                dst[d] = v; dst[d &+ 1] = v; dst[d &+ 2] = v; dst[d &+ 3] = src[x &* 2 &+ 1]
            }
        default:
            let sourceBPP = source.bytesPerPixel, targetBPP = target.bytesPerPixel
            for x in 0..<count {
                let (r, g, b, a) = readRGBA(src, x * sourceBPP, source)
                writeRGBA(dst, x * targetBPP, target, r, g, b, a)
            }
        }
    }

    /// The pixel at byte offset `i` of a `format` row, as red, green, blue, alpha.
    @inline(__always)
    static func readRGBA(
        _ p: UnsafePointer<UInt8>, _ i: Int, _ format: PixelFormat
    ) -> (UInt8, UInt8, UInt8, UInt8) {
        switch format {
        case .rgba8: (p[i], p[i + 1], p[i + 2], p[i + 3])
        case .rgb8: (p[i], p[i + 1], p[i + 2], 255)
        case .grayAlpha8: (p[i], p[i], p[i], p[i + 1])
        case .gray8: (p[i], p[i], p[i], 255)
        }
    }

    /// Writes red, green, blue, alpha at byte offset `i` of a `format` row.
    @inline(__always)
    static func writeRGBA(
        _ p: UnsafeMutablePointer<UInt8>, _ i: Int, _ format: PixelFormat,
        _ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8
    ) {
        switch format {
        case .rgba8: p[i] = r; p[i + 1] = g; p[i + 2] = b; p[i + 3] = a
        case .rgb8: p[i] = r; p[i + 1] = g; p[i + 2] = b
        case .grayAlpha8: p[i] = luma709(r, g, b); p[i + 1] = a
        case .gray8: p[i] = luma709(r, g, b)
        }
    }

    /// Rec. 709 luma of gamma-encoded components, in 16-bit fixed point.
    @inline(__always)
    static func luma709(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (13933 * Int(r) + 46871 * Int(g) + 4732 * Int(b) + 32768) >> 16)
    }

    /// The smallest format that holds both this image's pixels and `color`
    /// without losing anything: adds colour when `color` is not gray, and
    /// alpha when it is not opaque.
    func formatAccommodating(_ color: ImageTransformers.Color) -> PixelFormat {
        let gray = pixelFormat.isGray && color.isGray
        let alpha = pixelFormat.hasAlpha || color.alpha < 255
        switch (gray, alpha) {
        case (true, true): return .grayAlpha8
        case (true, false): return .gray8
        case (false, true): return .rgba8
        case (false, false): return .rgb8
        }
    }

    /// A tightly packed copy of the pixels in `rect`, which must lie inside
    /// the image; `self` when `rect` is the whole image.
    package func cropped(to rect: PixelRect) -> Image {
        if rect == PixelRect(x: 0, y: 0, width: width, height: height) { return self }
        let bpp = pixelFormat.bytesPerPixel
        let rowBytes = rect.width * bpp
        let stride = bytesPerRow
        return withUnsafeBytes { source in
            Image.make(
                width: rect.width, height: rect.height, pixelFormat: pixelFormat,
                orientation: orientation, format: format, isPreview: isPreview
            ) { destination in
                guard let src = source.baseAddress, let dst = destination.baseAddress else { return }
                for row in 0..<rect.height {
                    (dst + row * rowBytes).copyMemory(
                        from: src + (rect.y + row) * stride + rect.x * bpp, byteCount: rowBytes
                    )
                }
            }
        }
    }
}
