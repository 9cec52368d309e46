import CSpng

/// Owns one libspng context for the duration of a single decode or encode.
///
/// A class (not `Sendable`) so that the context is freed exactly once, when
/// the last reference goes away, on whatever thread used it. A decoding
/// context reads from a caller-owned buffer: the caller keeps that buffer
/// alive and unmoved for as long as the context exists.
final class SpngContext {
    /// The libspng handle; never `nil` once `init` succeeded.
    let raw: OpaquePointer
    /// Whether errors are encoding failures rather than undecodable data.
    private let isEncoder: Bool

    /// The largest single ancillary chunk (decompressed, for zTXt/iTXt/iCCP)
    /// libspng may hold: 4 MiB. Real ICC profiles and text stay far below;
    /// a larger chunk fails the decode with "reached chunk/cache limits".
    static let chunkSizeLimit = 4 << 20
    /// The most ancillary chunk data libspng may cache per image: 16 MiB.
    static let chunkCacheLimit = 16 << 20

    /// A decoder over `buffer`, with the chunk limits above, so that no
    /// ancillary chunk and no compressed text can make memory unbounded
    /// (libspng also keeps at most 1000 text and sPLT chunks, its default).
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` if libspng refuses.
    init(decoding buffer: UnsafeRawBufferPointer) throws(ImageError) {
        guard !buffer.isEmpty else { throw .undecodable(.png, "no data") }
        guard let raw = spng_ctx_new(0) else { throw .undecodable(.png, "libspng could not allocate a context") }
        self.raw = raw
        self.isEncoder = false
        try check(spng_set_chunk_limits(raw, Self.chunkSizeLimit, Self.chunkCacheLimit))
        // A damaged ancillary chunk (say a gAMA or iCCP that changes the
        // colours) fails like a critical one, as PNGCoder documents, instead
        // of libspng's default of discarding it silently.
        try check(spng_set_crc_action(raw, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_ERROR.rawValue)))
        try check(spng_set_png_buffer(raw, buffer.baseAddress, buffer.count))
    }

    /// An encoder writing to an internal buffer (see ``takeEncodedData()``).
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` if libspng refuses.
    init(encoding: Void) throws(ImageError) {
        guard let raw = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw .encodingFailed(.png, "libspng could not allocate a context")
        }
        self.raw = raw
        self.isEncoder = true
        try check(spng_set_option(raw, SPNG_ENCODE_TO_BUFFER, 1))
    }

    deinit {
        spng_ctx_free(raw)
    }

    /// Turns a libspng return code into a typed error carrying
    /// `spng_strerror`'s message; every libspng call goes through it.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` (decoder) or
    ///   ``ImageError/encodingFailed(_:_:)`` (encoder) for any non-zero code.
    func check(_ code: Int32) throws(ImageError) {
        guard code != 0 else { return }
        throw error(code)
    }

    /// The typed error for a non-zero libspng code.
    func error(_ code: Int32) -> ImageError {
        let message = Self.message(code)
        return isEncoder ? .encodingFailed(.png, message) : .undecodable(.png, message)
    }

    /// libspng's message for `code`, made explicit for the end-of-data codes
    /// that a truncated file produces.
    static func message(_ code: Int32) -> String {
        let text = spng_strerror(code).map { String(cString: $0) } ?? "unknown error"
        if isEndOfData(code) { return "truncated: the data ends before the image does (\(text))" }
        return "\(text) (spng \(code))"
    }

    /// Whether `code` means "the data ran out", as opposed to "the data is wrong".
    static func isEndOfData(_ code: Int32) -> Bool {
        code == SPNG_IO_EOF.rawValue || code == SPNG_EOF.rawValue
    }

    /// The image header.
    func header() throws(ImageError) -> spng_ihdr {
        var ihdr = spng_ihdr()
        try check(spng_get_ihdr(raw, &ihdr))
        return ihdr
    }

    /// Whether the PNG has a tRNS chunk.
    ///
    /// This reads every chunk before the image data, so it is also where a
    /// truncated header, a bad CRC or an over-limit chunk is first reported.
    func hasTransparencyChunk() throws(ImageError) -> Bool {
        var trns = spng_trns()
        let code = spng_get_trns(raw, &trns)
        if code == SPNG_ECHUNKAVAIL.rawValue { return false }
        try check(code)
        return true
    }

    /// Reads the chunks after the image data once libspng has decoded it,
    /// and throws when one of them is damaged.
    ///
    /// libspng's decode ends at the last row, before the CRC of the IDAT
    /// chunk holding the end of the zlib stream is read, so a damaged last
    /// IDAT (its zlib stream intact) would pass; any getter then reads on
    /// to `IEND`, checking that CRC and the later chunks'. Running out of
    /// data there is no error: all of the image data arrived. Before the
    /// image is decoded (libdeflate's path read the pixels, with every IDAT
    /// CRC checked) this reads nothing new.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with libspng's message.
    func checkChunksAfterImageData() throws(ImageError) {
        var exif = spng_exif()
        let code = spng_get_exif(raw, &exif)
        guard code != 0, code != SPNG_ECHUNKAVAIL.rawValue, !Self.isEndOfData(code) else { return }
        throw error(code)
    }

    /// The orientation of an eXIf chunk, or `.up` when there is none or it
    /// cannot be read. eXIf is bounded by the chunk limits above.
    func exifOrientation() -> Image.Orientation {
        var exif = spng_exif()
        guard spng_get_exif(raw, &exif) == 0, let bytes = exif.data else { return .up }
        return Image.Orientation(tiff: UnsafeRawBufferPointer(start: bytes, count: exif.length)) ?? .up
    }
}
