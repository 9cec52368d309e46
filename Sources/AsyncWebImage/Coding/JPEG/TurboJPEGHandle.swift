import CTurboJPEG

/// One TurboJPEG instance, owned for the length of one decode or encode.
///
/// A handle carries libjpeg's state and its last error message, so it must
/// never be shared between threads; every operation makes its own
/// (`tjInitDecompress` costs a few microseconds, nothing next to a decode).
/// Non-copyable, so the handle is destroyed exactly once, when it goes out
/// of scope, on every path including thrown errors.
struct TurboJPEGHandle: ~Copyable {
    /// What the handle does.
    enum Kind {
        case decompressor
        case compressor
    }

    /// The image header as `tjDecompressHeader3` reads it.
    struct Header {
        /// Stored width and height.
        var size: PixelSize
        /// One of the `TJSAMP_*` values.
        var subsampling: Int32
        /// One of the `TJCS_*` values.
        var colorspace: Int32

        /// Whether the pixels are CMYK or YCCK (Adobe), which TurboJPEG only
        /// decodes to CMYK.
        var isCMYK: Bool {
            colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        }

        /// Whether the image has a single luminance channel.
        var isGray: Bool { colorspace == Int32(TJCS_GRAY.rawValue) }
    }

    private let raw: tjhandle
    private let kind: Kind

    /// Creates a TurboJPEG instance.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` or
    ///   ``ImageError/encodingFailed(_:_:)`` when TurboJPEG cannot allocate one.
    init(_ kind: Kind) throws(ImageError) {
        let made = switch kind {
        case .decompressor: tjInitDecompress()
        case .compressor: tjInitCompress()
        }
        guard let made else { throw Self.failure(kind, String(cString: tjGetErrorStr2(nil))) }
        raw = made
        self.kind = kind
    }

    deinit {
        tjDestroy(raw)
    }

    /// The one place every TurboJPEG return code goes through.
    ///
    /// TurboJPEG reports libjpeg warnings (data that decodes, but with
    /// something odd about it) with the same `-1` as fatal errors; only
    /// `tjGetErrorCode` tells them apart. The message is libjpeg's *first*
    /// warning of the operation.
    ///
    /// - Returns: `nil` when the call succeeded cleanly; libjpeg's warning
    ///   message when it completed with a warning, for the caller to judge.
    /// - Throws: ``ImageError/undecodable(_:_:)`` (decompressor) or
    ///   ``ImageError/encodingFailed(_:_:)`` (compressor) carrying
    ///   `tjGetErrorStr2`'s message when the error was fatal.
    @discardableResult
    func check(_ result: Int32) throws(ImageError) -> String? {
        guard result != 0 else { return nil }
        let message = String(cString: tjGetErrorStr2(raw))
        if tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) { return message }
        throw Self.failure(kind, message)
    }

    private static func failure(_ kind: Kind, _ message: String) -> ImageError {
        switch kind {
        case .decompressor: .undecodable(.jpeg, message)
        case .compressor: .encodingFailed(.jpeg, message)
        }
    }

    // MARK: Decompressing

    /// Reads the frame header: size, subsampling and colour space. Parses
    /// markers only, never entropy-coded data, so it is fast whatever the
    /// declared size.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` when no valid header is found.
    func readHeader(_ jpeg: UnsafeRawBufferPointer) throws(ImageError) -> Header {
        guard let base = jpeg.baseAddress, jpeg.count > 0 else { throw .undecodable(.jpeg, "no data") }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        try check(tjDecompressHeader3(
            raw, base.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
            &width, &height, &subsampling, &colorspace
        ))
        return Header(size: PixelSize(width: Int(width), height: Int(height)), subsampling: subsampling, colorspace: colorspace)
    }

    /// Decompresses `jpeg` into `destination`, scaled in the DCT domain to
    /// `size` (which must be the `TJSCALED` size of one scaling factor).
    ///
    /// - Parameters:
    ///   - pixelFormat: a `TJPF_*` value; `destination` holds
    ///     `size.height` rows of `pitch` bytes of it.
    /// - Returns: libjpeg's warning, if the decode completed with one.
    /// - Throws: ``ImageError/undecodable(_:_:)`` on a fatal error.
    func decompress(
        _ jpeg: UnsafeRawBufferPointer,
        into destination: UnsafeMutableRawBufferPointer,
        size: PixelSize,
        pitch: Int,
        pixelFormat: TJPF
    ) throws(ImageError) -> String? {
        guard let source = jpeg.baseAddress, let target = destination.baseAddress,
              destination.count >= pitch * size.height
        else { throw .undecodable(.jpeg, "no data") }
        // TJFLAG_LIMITSCANS makes libjpeg refuse progressive files with an
        // absurd number of scans (a known CPU exhaustion attack).
        return try check(tjDecompress2(
            raw, source.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
            target.assumingMemoryBound(to: UInt8.self),
            Int32(size.width), Int32(pitch), Int32(size.height),
            Int32(pixelFormat.rawValue), TJFLAG_LIMITSCANS
        ))
    }

    // MARK: Compressing

    /// Compresses packed pixels; `body` receives TurboJPEG's output buffer,
    /// which is freed when it returns unless `body` takes ownership by
    /// returning `true`.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` with TurboJPEG's message.
    func compress<Result>(
        _ pixels: UnsafeRawPointer,
        size: PixelSize,
        pitch: Int,
        pixelFormat: TJPF,
        subsampling: TJSAMP,
        quality: Int,
        _ body: (_ jpeg: UnsafeMutablePointer<UInt8>, _ count: Int) -> (result: Result, tookOwnership: Bool)
    ) throws(ImageError) -> Result {
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        let status = tjCompress2(
            raw, pixels.assumingMemoryBound(to: UInt8.self),
            Int32(size.width), Int32(pitch), Int32(size.height), Int32(pixelFormat.rawValue),
            &output, &outputSize, Int32(subsampling.rawValue), Int32(quality), 0
        )
        do {
            try check(status)
        } catch {
            tjFree(output)
            throw error
        }
        guard let output else { throw .encodingFailed(.jpeg, "TurboJPEG returned no data") }
        let (result, tookOwnership) = body(output, Int(outputSize))
        if !tookOwnership { tjFree(output) }
        return result
    }
}
