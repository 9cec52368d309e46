public import Foundation

/// The decoders and encoders a loader tries, in order: custom coders first,
/// then the built-in coders (SDWebImage's coders manager, as a value).
///
/// The core product decodes JPEG and PNG. Every other format is a product of
/// its own, registered the way SDWebImage's coder plug-ins are, so that an
/// application links only the C libraries of the formats it reads:
///
/// ```swift
/// import AsyncWebImage
/// import AsyncWebImageWebP
///
/// var configuration = ImageLoader.Configuration()
/// configuration.coders.add(WebPCoder())
/// let loader = ImageLoader(configuration: configuration)
/// ```
public struct ImageCoderRegistry: Sendable {
    /// Decoders in the order they are asked.
    public private(set) var decoders: [any ImageDecoding]
    /// Encoders in the order they are asked.
    public private(set) var encoders: [any ImageEncoding]

    /// The core's coders: ``JPEGCoder`` and ``PNGCoder``, decoding and encoding.
    public static let builtIn = ImageCoderRegistry(
        decoders: [JPEGCoder(), PNGCoder()],
        encoders: [JPEGCoder(), PNGCoder()]
    )

    /// Creates a registry with exactly these coders.
    public init(decoders: [any ImageDecoding], encoders: [any ImageEncoding]) {
        self.decoders = decoders
        self.encoders = encoders
    }

    /// Puts `coder` in front of every decoder and every encoder already
    /// registered: a format product's coder, which does both.
    public mutating func add(_ coder: some ImageDecoding & ImageEncoding) {
        add(decoder: coder)
        add(encoder: coder)
    }

    /// Puts `decoder` in front of every decoder already registered: a format
    /// product's decoder that writes nothing.
    public mutating func add(_ decoder: some ImageDecoding) {
        add(decoder: decoder)
    }

    /// This registry with `coder` in front of its decoders and encoders.
    public func adding(_ coder: some ImageDecoding & ImageEncoding) -> ImageCoderRegistry {
        var copy = self
        copy.add(coder)
        return copy
    }

    /// This registry with `decoder` in front of its decoders.
    public func adding(_ decoder: some ImageDecoding) -> ImageCoderRegistry {
        var copy = self
        copy.add(decoder: decoder)
        return copy
    }

    /// Puts `decoder` in front of every decoder already registered.
    public mutating func add(decoder: any ImageDecoding) {
        decoders.insert(decoder, at: 0)
    }

    /// Puts `encoder` in front of every encoder already registered.
    public mutating func add(encoder: any ImageEncoding) {
        encoders.insert(encoder, at: 0)
    }

    /// The first decoder that accepts `data`.
    public func decoder(for data: Data) -> (any ImageDecoding)? {
        decoders.first { $0.canDecode(data) }
    }

    /// The pixel size `data`'s header declares, by the decoder that would
    /// decode it (``ImageDecoding/declaredSize(of:)``), or `nil`.
    public func declaredSize(of data: Data) -> PixelSize? {
        decoder(for: data)?.declaredSize(of: data)
    }

    /// The first encoder that writes `format`.
    public func encoder(for format: ImageFormat) -> (any ImageEncoding)? {
        encoders.first { $0.canEncode(format) }
    }

    /// Decodes `data` with the first decoder that accepts it.
    ///
    /// An animation (a decoder of the package's animated formats that
    /// finds more than one frame) gives its first frame with the
    /// ``AnimatedImage`` in ``Image/animation``, unless
    /// ``ImageDecodingOptions/decodesFirstFrameOnly``: then the decoder's
    /// still image. Thumbnail and scale-down options resample every frame
    /// to the size they give the canvas.
    ///
    /// - Throws: ``ImageError/unsupportedFormat(_:)`` when none does, or the decoder's error.
    public func decode(_ data: Data, options: ImageDecodingOptions = .init()) throws -> Image {
        try decodeNow(data, options: options, limiter: .shared)
    }

    /// ``decode(_:options:)``, with an animation's playback under `limiter`
    /// (the loader's, so that its frames and its stills share the permits).
    func decodeNow(_ data: Data, options: ImageDecodingOptions, limiter: ConcurrencyLimiter) throws -> Image {
        guard let decoder = decoder(for: data) else { throw ImageError.unsupportedFormat(ImageFormat.detect(data)) }
        if !options.decodesFirstFrameOnly, let animated = decoder as? any AnimatedImageDecoding,
           let image = try Self.decodeAnimation(data, with: animated, options: options, limiter: limiter) {
            return image
        }
        return try decoder.decode(data, options: options)
    }

    /// Frame 0 of the animation in `data` carrying the animation, or `nil`
    /// when `data` is a still image.
    private static func decodeAnimation(
        _ data: Data, with coder: any AnimatedImageDecoding, options: ImageDecodingOptions, limiter: ConcurrencyLimiter
    ) throws -> Image? {
        guard let frames = try coder.makeAnimatedFrameDecoder(data, options: options) else { return nil }
        let canvas = PixelSize(width: frames.info.canvasWidth, height: frames.info.canvasHeight)
        var resample: (@Sendable (Image) throws -> Image)?
        if let target = options.targetSize(forStored: canvas, orientation: .up) {
            resample = { @Sendable frame in options.resampleThumbnail(frame, to: target) }
        }
        let animation = AnimatedImage(
            decoder: frames,
            makeDecoder: {
                guard let decoder = try coder.makeAnimatedFrameDecoder(data, options: options) else {
                    throw ImageError.undecodable(ImageFormat.detect(data), "no longer an animation")
                }
                return decoder
            },
            maxBufferBytes: options.maxAnimationBufferBytes, frameTransform: resample, limiter: limiter
        )
        if options.preloadsAllFrames { try animation.preloadAllFrames() }
        var first = try animation.decodeFrame(at: 0)
        first.animation = animation
        return first
    }

    /// Encodes `image` with the first encoder that writes `format`.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` when none does, or the encoder's error.
    public func encode(_ image: Image, as format: ImageFormat, quality: Double = 0.9) throws -> Data {
        guard let encoder = encoder(for: format) else { throw ImageError.encodingFailed(format, "no encoder registered") }
        return try encoder.encode(image, as: format, quality: quality)
    }
}
