import CAvif
import AsyncWebImage

/// Owns one libavif decoder for the duration of a single decode.
///
/// A class (not `Sendable`) so that the decoder is destroyed exactly once,
/// on whatever thread used it. The decoder reads from a caller-owned buffer
/// without copying it: the caller keeps that buffer alive and unmoved for as
/// long as the handle exists.
final class AVIFDecoderHandle {
    /// The libavif decoder; never `nil` once `init` succeeded.
    let raw: UnsafeMutablePointer<avifDecoder>

    /// A decoder over `buffer` with libavif's own default limits (16384²
    /// pixels, 32768 per side) for parsing; ``limit(toPixels:)`` tightens
    /// them to the caller's limit before anything is decoded.
    ///
    /// - Parameters:
    ///   - maxThreads: worker threads the AV1 decoder may use.
    ///   - strictness: which of libavif's conformance checks apply.
    /// - Throws: ``ImageError/undecodable(_:_:)`` for empty data or if libavif refuses.
    init(
        decoding buffer: UnsafeRawBufferPointer, maxThreads: Int, strictness: AVIFCoder.Strictness = .lenient
    ) throws(ImageError) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { throw .undecodable(.avif, "no data") }
        guard let raw = avifDecoderCreate() else { throw .undecodable(.avif, "libavif could not allocate a decoder") }
        self.raw = raw
        raw.pointee.maxThreads = Int32(clamping: max(1, maxThreads))
        // Set explicitly (they are libavif's defaults): a header over them
        // fails the parse itself. Our own, usually lower, limit is checked
        // on the parsed size so it fails as `.tooLarge`.
        raw.pointee.imageSizeLimit = UInt32(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)
        raw.pointee.imageDimensionLimit = UInt32(AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT)
        // libavif's default: a sample table of more frames fails the parse.
        // A still decode reads the first frame of a sequence; an animation's
        // frame count is checked against the animation pixel limit.
        // (AVIF_DEFAULT_IMAGE_COUNT_LIMIT, a macro expression Swift does not import: 12 hours at 60 fps.)
        raw.pointee.imageCountLimit = 12 * 3600 * 60
        raw.pointee.strictFlags = strictness == .strict ? UInt32(AVIF_STRICT_ENABLED.rawValue) : UInt32(AVIF_STRICT_DISABLED.rawValue)
        raw.pointee.ignoreXMP = AVIF_TRUE
        raw.pointee.ignoreExif = AVIF_TRUE
        try check(avifDecoderSetIOMemory(raw, base.assumingMemoryBound(to: UInt8.self), buffer.count))
    }

    deinit {
        avifDecoderDestroy(raw)
    }

    /// Reads the container (boxes, properties, item sizes) without decoding
    /// any AV1 data; afterwards `raw.pointee.image` holds the declared size,
    /// depth, transforms and ICC profile, but no planes.
    func parse() throws(ImageError) {
        try check(avifDecoderParse(raw))
    }

    /// Lowers libavif's pixel limit to `maxPixelCount` (never raises it),
    /// for what ``decodeFirstImage()`` allocates: the AV1 decoder's frames
    /// (dav1d takes it as its frame-size limit) and the image libavif scales
    /// a frame to when it is smaller than `ispe` says.
    func limit(toPixels maxPixelCount: Int) {
        // 0 would mean "reserved", so the smallest limit is 1.
        let limit = UInt32(clamping: min(max(1, maxPixelCount), Int(raw.pointee.imageSizeLimit)))
        raw.pointee.imageSizeLimit = limit
    }

    /// Decodes the next frame (the first after a parse or a reset; a still
    /// image's only one) into `raw.pointee.image`'s planes.
    func decodeFirstImage() throws(ImageError) {
        try check(avifDecoderNextImage(raw))
    }

    /// Goes back before the first frame, so the next decode gives it.
    func reset() throws(ImageError) {
        try check(avifDecoderReset(raw))
    }

    /// The number of frames: 1 for a still image, more for a sequence.
    var imageCount: Int { Int(raw.pointee.imageCount) }

    /// How long frame `index` shows, from the sample table (no AV1 data decoded).
    func duration(ofFrame index: Int) -> Duration {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(raw, UInt32(clamping: index), &timing) == AVIF_RESULT_OK, timing.timescale > 0 else {
            return .zero
        }
        let timescale = timing.timescale
        let whole = timing.durationInTimescales / timescale
        let rest = timing.durationInTimescales % timescale
        return .seconds(Int64(clamping: whole)) + .nanoseconds(Int64(clamping: rest * 1_000_000_000 / timescale))
    }

    /// The parsed image; valid after ``parse()``.
    var image: UnsafeMutablePointer<avifImage> {
        get throws(ImageError) {
            guard let image = raw.pointee.image else { throw .undecodable(.avif, "libavif returned no image") }
            return image
        }
    }

    /// Throws unless `result` is `AVIF_RESULT_OK`, with libavif's message
    /// and its diagnostic detail when it gave one.
    func check(_ result: avifResult) throws(ImageError) {
        guard result != AVIF_RESULT_OK else { return }
        throw .undecodable(.avif, AVIFCoder.message(result, diagnostics: &raw.pointee.diag))
    }
}
