/// ``ImageResampler``'s resample fed one source row at a time, for decoders
/// that produce rows: each row is taken in as it arrives (filtered, or kept
/// for the vertical pass, by ``SeparableResampler/Order``), and
/// an output row is written as soon as the last source row of its window
/// has arrived.
///
/// It holds the output image and a handful of rows, never the source image
/// (a thumbnail of a 7000 × 7000 RGBA PNG holds a few hundred kilobytes
/// besides its output). Both are ``SeparableResampler``, so the pixels are
/// identical to ``ImageResampler/resample(_:to:filter:light:)`` with the same filter.
package struct StreamingResampler {
    private var engine: SeparableResampler

    /// The pixel format of the rows added and of the output.
    package var pixelFormat: PixelFormat { engine.pixelFormat }
    /// The output size.
    var size: PixelSize { engine.size }
    /// Bytes the resampler itself holds besides its output.
    var workingBytes: Int { engine.workingBytes }

    /// A resampler from `sourceWidth × sourceHeight` to `size` with
    /// `filter`, or `nil` for an empty size.
    ///
    /// - Parameter light: the light filtered in (``ImageResampler/defaultLight`` by default).
    /// - Parameter extent: the source's true width and height in source
    ///   pixels when its last column or row stands for less than a whole
    ///   pixel (a box-reduced image whose last box was partial).
    package init?(
        sourceWidth: Int, sourceHeight: Int, to size: PixelSize, pixelFormat: PixelFormat,
        filter: ImageTransformers.Resize.Filter = ImageResampler.defaultFilter, light: ImageTransformers.Resize.Light = ImageResampler.defaultLight,
        extent: (width: Double, height: Double)? = nil
    ) {
        guard sourceWidth > 0, sourceHeight > 0, size.width > 0, size.height > 0 else { return nil }
        engine = SeparableResampler(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, to: size, pixelFormat: pixelFormat,
            filter: filter, light: ImageResampler.engineLight(light), clamps: ImageResampler.clamps(filter), extent: extent
        )
    }

    /// Adds the next source row (tightly packed pixels of ``pixelFormat``)
    /// and writes every output row it completes into `output` (tightly
    /// packed rows of ``size``).
    package mutating func add(row: UnsafePointer<UInt8>, output: UnsafeMutableRawBufferPointer) {
        let bytesPerRow = engine.size.width * engine.pixelFormat.channelCount
        guard let base = output.baseAddress, output.count >= bytesPerRow * engine.size.height else { return }
        engine.add(row: row, output: base, bytesPerRow: bytesPerRow)
    }
}
