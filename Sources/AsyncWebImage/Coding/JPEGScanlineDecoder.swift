import CJPEG

/// A libjpeg decompressor driven a batch of rows at a time, for full
/// decodes that convert colour: each batch (one row group, 8 or 16 rows) is
/// converted by the caller while it is still in cache, instead of in a
/// second pass over the whole image after TurboJPEG's `tjDecompress2` wrote
/// it out to memory.
///
/// The decode is the one `tjDecompress2` runs (TurboJPEG 2.1 is built on
/// this API: memory source, default DCT and fancy upsampling, extended RGB
/// output, at most ``maxScans`` progressive scans), so the pixels are the
/// same byte for byte. libjpeg's fatal errors come back through the C
/// shim's jump points (`CJPEG_*` in `shim.h`) as failure codes, never as a
/// jump across Swift frames; warnings are kept, first one only, for the
/// caller to judge as it judges TurboJPEG's.
///
/// Non-copyable, so the decompressor is destroyed exactly once.
struct JPEGScanlineDecoder: ~Copyable {
    /// The progressive scan limit (TurboJPEG's `TJFLAG_LIMITSCANS`).
    static let maxScans = Int(CJPEG_MAX_SCANS)

    private let raw: UnsafeMutablePointer<CJPEG_Decoder>

    /// Creates a decompressor.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` when libjpeg cannot allocate one.
    init() throws(ImageError) {
        guard let raw = CJPEG_create() else { throw .undecodable(.jpeg, "libjpeg could not create a decompressor") }
        self.raw = raw
    }

    deinit {
        CJPEG_destroy(raw)
    }

    /// Decodes `jpeg` to RGB at `scale` into `destination` (`size.height`
    /// rows of `pitch` bytes, `size` being `scale` applied to the stored
    /// size), calling `rows` with each batch of rows as soon as it is decoded.
    ///
    /// - Parameter rows: the first row of the batch, its row count.
    /// - Returns: libjpeg's first warning, if the decode completed with one.
    /// - Throws: ``ImageError/undecodable(_:_:)`` with libjpeg's message on
    ///   a fatal error, or when the output size is not `size`.
    func decodeRGB(
        _ jpeg: UnsafeRawBufferPointer,
        scale: JPEGScale,
        into destination: UnsafeMutableRawBufferPointer,
        size: PixelSize,
        pitch: Int,
        rows: (_ first: Int, _ count: Int) -> Void
    ) throws(ImageError) -> String? {
        guard let source = jpeg.baseAddress, let target = destination.baseAddress,
              size.width * 3 <= pitch, destination.count >= pitch * size.height
        else { throw .undecodable(.jpeg, "no data") }
        try check(CJPEG_startRGB(
            raw, source.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
            UInt32(scale.numerator), UInt32(scale.denominator)
        ))
        // The buffer was sized from TurboJPEG's header; libjpeg must agree.
        guard Int(raw.pointee.info.output_width) == size.width, Int(raw.pointee.info.output_height) == size.height,
              raw.pointee.info.output_components == 3
        else { throw .undecodable(.jpeg, "libjpeg's output size differs from the header's") }
        var row = 0
        while row < size.height {
            let first = target.assumingMemoryBound(to: UInt8.self) + row * pitch
            let read = CJPEG_readRows(raw, first, pitch, UInt32(min(size.height - row, 64)))
            try check(read >= 0 ? 1 : 0)
            // libjpeg returns no rows only when its source is suspended,
            // which a memory source never is; stop rather than spin.
            guard read > 0 else { throw .undecodable(.jpeg, "libjpeg returned no rows") }
            rows(row, Int(read))
            row += Int(read)
        }
        try check(CJPEG_finish(raw))
        return raw.pointee.hasWarning != 0 ? Self.string(raw.pointee.warning) : nil
    }

    /// Throws the fatal error a shim call reported by returning 0.
    private func check(_ status: Int32) throws(ImageError) {
        guard status == 0 else { return }
        throw .undecodable(.jpeg, Self.string(raw.pointee.message))
    }

    /// A NUL-terminated C string held in a fixed-size array (a tuple in Swift).
    private static func string<Storage>(_ storage: Storage) -> String {
        withUnsafeBytes(of: storage) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
