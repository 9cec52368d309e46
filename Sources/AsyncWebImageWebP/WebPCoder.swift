public import Foundation
import CWebP
public import AsyncWebImage

/// WebP decoding and encoding on libwebp (with libwebpdemux for metadata
/// and libwebpmux to write it).
///
/// Decodes still WebP files, lossy (VP8) or lossless (VP8L), with or without
/// alpha, to `.rgba8` when the bitstream has alpha and `.rgb8` otherwise
/// (straight alpha, as ``Image`` documents). The orientation comes from the
/// EXIF chunk of an extended (VP8X) file. Of an animated WebP, ``decode(_:options:)``
/// gives the first frame composited on the canvas (`.rgba8`), resampled for
/// thumbnails; ``makeAnimatedFrameDecoder(_:options:)`` gives every frame.
///
/// Thumbnails and ``ImageDecodingOptions/scaleDownLargeImages`` use
/// libwebp's scaled decode, which resamples each row as it is decoded, so
/// the full-size image is never held: the result has exactly the size
/// ``ImageDecodingOptions/targetSize(forStored:orientation:)`` asks for
/// (aspect kept or not, as ``ImageDecodingOptions/preserveAspectRatio``
/// says).
///
/// Safety on hostile input: the canvas size is read from the header
/// (`WebPGetFeatures`) and ``ImageDecodingOptions/maxPixelCount`` checked
/// before any pixel buffer is allocated; a file whose RIFF size runs past
/// its end, that is truncated, or whose chunks lie about their sizes fails
/// with ``ImageError/undecodable(_:_:)`` carrying libwebp's status.
public struct WebPCoder: ImageDecoding, ImageEncoding {
    /// Whether the encoder writes lossless WebP (VP8L) instead of lossy
    /// (VP8). `false` by default.
    public var lossless: Bool

    /// How hard the encoder works, 0 (fastest) to 6 (smallest). 4 by
    /// default, as `cwebp`.
    public var method: Int

    /// Creates the coder.
    ///
    /// - Parameters:
    ///   - lossless: Encode losslessly (the `quality` passed to
    ///     ``encode(_:as:quality:)`` then sets the compression effort). `false` by default.
    ///   - method: Encoder effort, clamped to 0...6. 4 by default.
    public init(lossless: Bool = false, method: Int = 4) {
        self.lossless = lossless
        self.method = min(max(method, 0), 6)
    }

    /// Whether `data` starts with `RIFF....WEBP`.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .webp }

    /// Decodes a still WebP, at full size or at the size the thumbnail and
    /// scale-down options ask for, then applies the orientation if asked.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when the header
    ///   declares more than ``ImageDecodingOptions/maxPixelCount`` pixels;
    ///   ``ImageError/undecodable(_:_:)`` with libwebp's status otherwise.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        var image = try data.withUnsafeBytes { bytes in
            try Self.decodeImage(bytes, options: options)
        }
        image = options.applyOrientation ? image.applyingOrientation() : image
        // The ICCP chunk's profile, converted to sRGB (or kept) as every coder does.
        return ColorManager.manage(consume image, iccProfile: Self.iccProfile(in: data), options: options)
    }

    /// A ``WebPProgressiveDecoder`` for a download in progress.
    package func makeProgressiveDecoder(options: ImageDecodingOptions) -> (any ProgressiveImageDecoding)? {
        WebPProgressiveDecoder(options: options)
    }

    /// Whether `format` is `.webp`.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .webp }

    /// The bytes of the ICC profile in the `ICCP` chunk of an extended WebP,
    /// or `nil` when there is none or the container is malformed.
    static func iccProfile(in data: Data) -> Data? {
        data.withUnsafeBytes { WebPContainer.chunk("ICCP", in: $0) }
    }

    /// Header, limit, metadata, then one libwebp decode straight into the image's storage.
    static func decodeImage(_ webp: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image {
        let features = try WebPContainer.features(webp)
        guard features.has_animation == 0 else { return try decodeFirstFrame(webp, options: options) }
        let size = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.checkPixelLimit(size)
        let orientation = WebPContainer.orientation(in: webp)
        let target = options.targetSize(forStored: size, orientation: orientation) ?? size
        let pixelFormat: PixelFormat = features.has_alpha != 0 ? .rgba8 : .rgb8
        let decoded = scaledDecodeSize(of: size, for: target, options: options)
        let scaled = try decodeScaled(webp, features: features, size: size, to: decoded, pixelFormat: pixelFormat, orientation: orientation)
        return decoded == target ? scaled : options.resampleThumbnail(scaled, to: target)
    }

    /// The size libwebp scales a thumbnail of `target` to while decoding an
    /// image of `size`: the target itself, unless the thumbnail is filtered
    /// in linear light (``ImageDecodingOptions/thumbnailLight``): then twice
    /// the target, and the filter takes it the rest of the way.
    ///
    /// libwebp's scaling is an exact area average of the stored values. The
    /// quality panel (`awi-bench --scenario thumbnail-quality`) preferred it
    /// all the way to the target (as libvips does) over stopping at 1.25,
    /// 1.5 or 2 times it for Lanczos-3: the Lanczos-3 references rated them
    /// alike, the area average 1.5–3 points lower; and it costs no resample.
    static func scaledDecodeSize(of size: PixelSize, for target: PixelSize, options: ImageDecodingOptions) -> PixelSize {
        guard target != size, options.thumbnailLight == .linear, options.thumbnailFilter != .area else { return target }
        return PixelSize(width: min(size.width, target.width * 2), height: min(size.height, target.height * 2))
    }

    /// One libwebp decode straight into a new image of `target` (libwebp
    /// scaling while it decodes when that is smaller than `size`).
    private static func decodeScaled(
        _ webp: UnsafeRawBufferPointer, features: WebPBitstreamFeatures, size: PixelSize, to target: PixelSize,
        pixelFormat: PixelFormat, orientation: Image.Orientation
    ) throws -> Image {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ImageError.undecodable(.webp, "libwebp version mismatch") }
        config.input = features
        if target != size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
            if target.width * 2 <= size.width && target.height * 2 <= size.height {
                // Reduced at least twice while decoding, and resampled after:
                // the in-loop deblocking filter and the fancy chroma upsampling
                // change pixels the reduction averages away (a quarter of
                // libwebp's decode time; judged by the quality panel).
                config.options.bypass_filtering = 1
                config.options.no_fancy_upsampling = 1
            }
        }
        config.output.colorspace = pixelFormat == .rgba8 ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        let image = try Image.make(
            width: target.width, height: target.height, pixelFormat: pixelFormat,
            orientation: orientation, format: .webp
        ) { pixels in
            config.output.u.RGBA.rgba = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(target.width * pixelFormat.bytesPerPixel)
            config.output.u.RGBA.size = pixels.count
            let status = WebPDecode(webp.baseAddress?.assumingMemoryBound(to: UInt8.self), webp.count, &config)
            // Frees nothing of ours (external memory); here for libwebp's own bookkeeping.
            WebPFreeDecBuffer(&config.output)
            guard status == VP8_STATUS_OK else { throw WebPContainer.error(status, while: "decoding") }
        }
        return image
    }

    /// The first frame of an animation on its canvas, at the size the options ask for.
    private static func decodeFirstFrame(_ webp: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image {
        let decoder = try WebPAnimationDecoder(webp, options: options, checksAnimationLimit: false, managesColor: false)
        guard let frame = try decoder.decodeNextFrame() else { throw ImageError.undecodable(.webp, "an animation without frames") }
        let orientation = WebPContainer.orientation(in: webp)
        let target = options.targetSize(forStored: frame.size, orientation: orientation) ?? frame.size
        let sized = target == frame.size ? frame : options.resampleThumbnail(frame, to: target)
        return sized.with(orientation: orientation, format: .webp)
    }
}

/// Previews while the bytes arrive (`.progressiveLoad`).
extension WebPCoder: ProgressiveDecoderProviding {}
