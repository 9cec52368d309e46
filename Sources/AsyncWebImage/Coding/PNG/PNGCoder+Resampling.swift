import CSpng

extension PNGCoder {
    /// Decodes straight to `target` when the image is less than twice the
    /// target (no whole shrink factor applies): each row goes into a
    /// ``StreamingResampler`` as it is decoded, so a plain image is never
    /// held at full size, and no image is ever held as the resampler's float
    /// intermediate. An interlaced image is decoded in full first (its rows
    /// arrive in seven passes), then streamed.
    ///
    /// The pixels equal a full decode resampled by ``ImageResampler`` with
    /// the options' thumbnail filter.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` as for a full decode.
    static func decodeResampling(
        _ context: SpngContext, png: UnsafeRawBufferPointer, plan: PNGDecodePlan, target: PixelSize,
        options: ImageDecodingOptions = ImageDecodingOptions(), maximumInflatedBytes: Int
    ) throws -> Image {
        func resampler() -> StreamingResampler? {
            options.thumbnailResampler(sourceWidth: plan.width, sourceHeight: plan.height, to: target, pixelFormat: plan.pixelFormat)
        }
        guard !plan.isInterlaced, var streaming = resampler() else {
            let full = try decodeFull(context, png: png, plan: plan, maximumInflatedBytes: maximumInflatedBytes)
            guard var streaming = resampler() else { return options.resampleThumbnail(full, to: target) }
            return Image.make(width: target.width, height: target.height, pixelFormat: plan.pixelFormat, format: .png) { output in
                full.withUnsafeBytes { pixels in
                    guard let base = pixels.bindMemory(to: UInt8.self).baseAddress else { return }
                    for y in 0..<plan.height { streaming.add(row: base + y * full.bytesPerRow, output: output) }
                }
            }
        }
        var scratch = [UInt8](repeating: 0, count: plan.rowBytes)
        if var inflated = PNGInflatedImage(png: png, context: context, plan: plan, maximumInflatedBytes: maximumInflatedBytes, reduced: true) {
            let converter = inflated.converter
            var complete = false
            let image = Image.make(width: target.width, height: target.height, pixelFormat: plan.pixelFormat, format: .png) { output in
                complete = scratch.withUnsafeMutableBufferPointer { scratch in
                    guard let row = scratch.baseAddress else { return false }
                    return inflated.forEachRow { stored, _, pass in
                        if converter.isIdentity {
                            streaming.add(row: stored, output: output)
                        } else {
                            guard converter.convert(stored, pass: pass, into: row) else { return false }
                            streaming.add(row: row, output: output)
                        }
                        return true
                    }
                }
            }
            if complete { return image }
            guard let fresh = resampler() else { throw ImageError.undecodable(.png, "no resampler") }
            streaming = fresh
        }
        try PNGRowDecoder.start(context, plan: plan)
        return try Image.make(width: target.width, height: target.height, pixelFormat: plan.pixelFormat, format: .png) { output in
            try PNGRowDecoder.forEachSequentialRow(context, plan: plan) { streaming.add(row: $0, output: output) }
        }
    }
}
