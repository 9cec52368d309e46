public import Foundation
import CSpng

/// PNG decoding and encoding on libspng.
///
/// Decodes every colour type and bit depth of the PNG standard, with tRNS
/// transparency and Adam7 interlacing, to the smallest ``PixelFormat`` that
/// holds the image without loss (straight alpha):
/// grey → `.gray8`; grey with tRNS or alpha → `.grayAlpha8`; RGB or palette
/// → `.rgb8`; RGB or palette with tRNS, and RGBA → `.rgba8`. 16-bit samples
/// are rounded to 8 bits. An `iCCP` profile, else `gAMA`/`cHRM`, is applied
/// by converting to sRGB (`ColorManager`, ``ImageDecodingOptions/keepsColorProfile``;
/// previews are not converted). The
/// orientation comes from an eXIf chunk when there is one. Animated PNGs
/// (APNG) decode to their default image, as by any non-APNG decoder —
/// except an animation of one frame behind a hidden default image (no
/// `fcTL` before the `IDAT`), which no frame decoder plays: it decodes to
/// that frame, as APNG viewers show it (to the default image when the
/// animation is broken, the APNG specification's fallback).
///
/// Safety on hostile input:
/// - the header is read and ``ImageDecodingOptions/maxPixelCount`` checked
///   before any pixel buffer is allocated;
/// - so is the amount of image data: IDAT chunks holding less than 1/1032
///   of the declared size's filtered rows (deflate's largest expansion)
///   cannot be the whole image and fail at once;
/// - ancillary chunks are limited to 4 MiB each (decompressed, for zTXt,
///   iTXt and iCCP) and 16 MiB in all, so a compressed-text bomb fails with
///   ``ImageError/undecodable(_:_:)`` instead of inflating; image data is
///   inflated only into the pixel buffer, so an IDAT bomb cannot grow memory;
/// - CRC and Adler-32 mismatches are errors, in ancillary chunks too (libspng
///   would drop a damaged ancillary chunk silently by default), and in the
///   chunks after the image data, which libspng's decode stops short of;
/// - a truncated file is an error, ``ImageError/undecodable(_:_:)`` whose
///   message starts with "truncated", unless all of its image data arrived
///   (a file cut after its last IDAT decodes).
///
/// A complete file's image data is inflated in one libdeflate call and
/// unfiltered by `PNGInflatedImage` (libspng still parses the chunks and
/// supplies PLTE and tRNS); libspng decodes as before when that does not
/// apply: a truncated or damaged file, inflated data over 128 MiB or over
/// what the memory budget leaves, an eXIf chunk after the image data, or a
/// stream that inflates to more than the image. A thumbnail (or scaled-down
/// decode) of image data over 4 MiB is inflated a row at a time with ISA-L
/// instead, unfiltered and reduced as it goes, so it never holds the
/// full-size image data either.
///
/// Thumbnails and ``ImageDecodingOptions/scaleDownLargeImages`` shrink while
/// decoding. When the image is at least six times the target size, pixels
/// are averaged in linear light in whole-factor boxes as their rows (or
/// Adam7 pass rows) are decoded, leaving at least three times the target,
/// then the small result is resampled to the exact size with
/// ``ImageDecodingOptions/thumbnailFilter`` (Lanczos-3 with anti-ringing on
/// encoded values by default). Smaller reductions resample row
/// by row as rows are decoded (`StreamingResampler`; an interlaced image is
/// decoded in full first).
/// Either way a plain PNG's full-size image is never held.
///
/// Memory: ``ImageDecodingOptions/maxDecodeMemoryBytes`` bounds what one
/// decode allocates (pixels, reducer sums, row buffers — 16-bit rows at
/// their real size — and resampling buffers), computed from the header
/// (`PNGDecodeRoute`); over it, the decode fails with
/// ``ImageError/tooLarge(_:limit:actual:)`` before allocating.
public struct PNGCoder: ImageDecoding, ImageEncoding {
    /// The deflate level the encoder uses, 0 (store) to 9 (smallest), as
    /// zlib numbers them (the compressor is libdeflate). 6 by default.
    public var compressionLevel: Int

    /// Creates the coder.
    ///
    /// - Parameter compressionLevel: deflate level for encoding, clamped to
    ///   0...9: lower is faster and larger. 6, zlib's default, by default.
    public init(compressionLevel: Int = 6) {
        self.compressionLevel = min(max(compressionLevel, 0), 9)
    }

    /// Whether `data` starts with the PNG signature.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }

    /// Decodes a whole PNG, then applies the thumbnail, scale-down and
    /// orientation options.
    ///
    /// Before any pixel memory, the IDAT bytes must be at least 1/1032 of
    /// the declared size's filtered rows: deflate never expands more, so a
    /// file under that is truncated whatever it holds, and fails at once.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when the header
    ///   declares more than ``ImageDecodingOptions/maxPixelCount`` pixels;
    ///   ``ImageError/undecodable(_:_:)`` with libspng's message for anything
    ///   else (including data that is not PNG at all).
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        if let frame = try Self.onlyFrameBehindHiddenDefaultImage(data, options: options) { return frame }
        let (image, target, extent) = try data.withUnsafeBytes { buffer -> (Image, PixelSize?, (width: Double, height: Double)?) in
            let context = try SpngContext(decoding: buffer)
            // The header alone first: nothing else is read or allocated for an oversized image.
            let header = try context.header()
            try options.checkPixelLimit(PixelSize(width: Int(header.width), height: Int(header.height)))
            let plan = try PNGDecodePlan(ihdr: header, hasTransparencyChunk: try context.hasTransparencyChunk())
            try Self.checkImageDataLength(buffer, plan: plan)
            // eXIf belongs before the image data, so the orientation is usually known now.
            let size = PixelSize(width: plan.width, height: plan.height)
            let early = context.exifOrientation()
            let target = options.targetSize(forStored: size, orientation: early)
            let route = PNGDecodeRoute(plan: plan, target: target, filter: options.thumbnailFilter)
            // The budget refuses the work before any pixel buffer exists.
            try route.checkMemory(budget: options.maxDecodeMemoryBytes, applyingOrientation: options.applyOrientation)
            let inflateLimit = min(PNGInflatedImage.maximumInflatedBytes, options.maxDecodeMemoryBytes - route.memoryBytes)
            let decoded: Image
            switch route.kind {
            case .full:
                decoded = try Self.decodeFull(context, png: buffer, plan: plan, maximumInflatedBytes: inflateLimit)
            case .shrink(let factor):
                decoded = try Self.decodeShrinking(
                    context, png: buffer, plan: plan, factor: factor, linear: options.thumbnailFilter != .area, maximumInflatedBytes: inflateLimit
                )
            case .resample(let size):
                decoded = try Self.decodeResampling(
                    context, png: buffer, plan: plan, target: size, options: options, maximumInflatedBytes: inflateLimit
                )
            }
            try context.checkChunksAfterImageData()
            // Some writers put eXIf after the image data; libspng has read it by now.
            // Its orientation then decides the target (a rare case where a
            // shrunk image may be resampled up a little).
            let orientation = early == .up ? context.exifOrientation() : early
            var finalTarget = orientation == early ? target : options.targetSize(forStored: size, orientation: orientation)
            if finalTarget == decoded.size { finalTarget = nil }
            // A box-shrunk image's last box may be partial: the resample
            // then maps the true extent, not the rounded-up pixel count.
            var extent: (width: Double, height: Double)?
            if case .shrink(let factor) = route.kind {
                extent = (Double(plan.width) / Double(factor), Double(plan.height) / Double(factor))
            }
            return (decoded.with(orientation: orientation), finalTarget, extent)
        }
        let colorProfile = data.withUnsafeBytes { PNGColorChunkReader.profile(in: $0, limit: options.maximumColorProfileBytes) }
        return ColorManager.manage(Self.finish(consume image, target: target, options: options, extent: extent), profile: colorProfile, options: options)
    }

    /// Throws when the PNG's IDAT chunks are too few bytes to inflate to the
    /// whole image (``PNGDecodePlan/minimumImageDataBytes``).
    ///
    /// Such data would fail anyway, once zlib ran dry, but only after the
    /// image buffer was allocated for the declared size.
    static func checkImageDataLength(_ png: UnsafeRawBufferPointer, plan: PNGDecodePlan) throws(ImageError) {
        let received = try PNGChunkScan(png).imageDataBytes
        let minimum = plan.minimumImageDataBytes
        guard received < minimum else { return }
        throw .undecodable(.png, "truncated: the image data is too short for the declared \(plan.width)×\(plan.height): "
            + "\(received) bytes, where deflate needs at least \(minimum) for its \(plan.filteredBytes) bytes of rows (1032:1 at most)")
    }

    /// The whole image at full size: libdeflate's path when it applies
    /// within `maximumInflatedBytes`, else libspng's.
    static func decodeFull(_ context: SpngContext, png: UnsafeRawBufferPointer, plan: PNGDecodePlan, maximumInflatedBytes: Int) throws -> Image {
        try Image.make(width: plan.width, height: plan.height, pixelFormat: plan.pixelFormat, format: .png) { pixels in
            if var inflated = PNGInflatedImage(png: png, context: context, plan: plan, maximumInflatedBytes: maximumInflatedBytes),
               inflated.decode(into: pixels, plan: plan) {
                return
            }
            try Self.decodePixels(context, plan: plan, into: pixels)
        }
    }

    /// Writes every pixel of the image into `pixels`.
    private static func decodePixels(_ context: SpngContext, plan: PNGDecodePlan, into pixels: UnsafeMutableRawBufferPointer) throws(ImageError) {
        if plan.isSixteenBit {
            try PNGRowDecoder.start(context, plan: plan)
            _ = try PNGRowDecoder.decodeRows(context, plan: plan, into: pixels, toleratingTruncation: false)
            return
        }
        // 8-bit output: one libspng call straight into the image's storage.
        var expected = 0
        try context.check(spng_decoded_image_size(context.raw, plan.spngFormat, &expected))
        guard expected == plan.rowBytes * plan.height, pixels.count >= expected else {
            throw .undecodable(.png, "libspng expects \(expected) bytes for \(plan.width)×\(plan.height) \(plan.pixelFormat)")
        }
        try context.check(spng_decode_image(context.raw, pixels.baseAddress, expected, plan.spngFormat, plan.spngFlags))
    }

    /// Resamples a decoded image to `target` (the stored-pixel size the
    /// options asked for, computed from the original size), then applies the
    /// orientation if asked.
    static func finish(
        _ image: consuming Image, target: PixelSize?, options: ImageDecodingOptions, extent: (width: Double, height: Double)? = nil
    ) -> Image {
        // Consumed, so that an image passed through unchanged still holds
        // the only reference to its pixels (the colour conversion after it
        // then rewrites them in place).
        if let target {
            image = options.resampleThumbnail(image, to: target, extent: extent)
        }
        if options.applyOrientation {
            image = image.applyingOrientation()
        }
        return image
    }

    /// A progressive decoder for a download in progress: previews of the
    /// rows (or Adam7 passes) decoded so far.
    package func makeProgressiveDecoder(options: ImageDecodingOptions) -> (any ProgressiveImageDecoding)? {
        PNGProgressiveDecoder(options: options)
    }

    /// Whether `format` is `.png`.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .png }
}

/// Previews while the bytes arrive (`.progressiveLoad`).
extension PNGCoder: ProgressiveDecoderProviding {}
