public import Foundation
import CWebP
public import AsyncWebImage

/// Writes animated WebP with libwebpmux's `WebPAnimEncoder`, which stores
/// each frame as the smallest changed rectangle with the blend and dispose
/// methods that reproduce it.
///
/// Frame times are kept to the millisecond (WebP's unit); frames are RGBA
/// canvases of one size, at most 16383 pixels a side.
public struct AnimatedWebPEncoder: AnimatedImageEncoding {
    /// 0...1, as `cwebp -q` 0...100: the lossy quality, or the compression
    /// effort when ``lossless`` is set. 0.8 by default.
    public var quality: Double
    /// Whether frames are stored losslessly (VP8L). `false` by default.
    public var lossless: Bool
    /// Encoder effort, 0 (fastest) to 6 (smallest). 4 by default.
    public var method: Int

    /// Creates the encoder.
    ///
    /// - Parameters:
    ///   - quality: 0...1 (clamped); 0.8 by default.
    ///   - lossless: Store frames losslessly; `false` by default.
    ///   - method: Effort, clamped to 0...6; 4 by default.
    public init(quality: Double = 0.8, lossless: Bool = false, method: Int = 4) {
        self.quality = min(max(quality, 0), 1)
        self.lossless = lossless
        self.method = min(max(method, 0), 6)
    }

    /// `.webp`.
    public var animationFormat: ImageFormat { .webp }

    /// Encodes the frames as one animated WebP with `loopCount` in its `ANIM` chunk.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` without frames, for
    ///   frames of different sizes or over 16383 pixels a side, or when libwebp fails.
    public func encodeAnimation(loopCount: Int, nextFrame: () throws -> (image: Image, duration: Duration)?) throws -> Data {
        guard let first = try nextFrame() else { throw ImageError.encodingFailed(.webp, "an animation needs a frame") }
        let width = first.image.width, height = first.image.height
        guard width <= WebPCoder.maximumDimension, height <= WebPCoder.maximumDimension else {
            throw ImageError.encodingFailed(.webp, "\(first.image.size) is over WebP's \(WebPCoder.maximumDimension) pixels a side")
        }
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw ImageError.encodingFailed(.webp, "libwebpmux version mismatch") }
        options.anim_params.loop_count = Int32(clamping: min(max(loopCount, 0), 65535))
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw ImageError.encodingFailed(.webp, "cannot create the animation encoder")
        }
        defer { WebPAnimEncoderDelete(encoder) }

        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImageError.encodingFailed(.webp, "libwebp version mismatch") }
        config.lossless = lossless ? 1 : 0
        config.quality = Float(quality * 100)
        config.method = Int32(method)
        guard WebPValidateConfig(&config) != 0 else { throw ImageError.encodingFailed(.webp, "invalid configuration") }

        var timestamp = 0
        var frame: (image: Image, duration: Duration)? = first
        while let current = frame {
            guard current.image.width == width, current.image.height == height else {
                throw ImageError.encodingFailed(.webp, "a frame of \(current.image.size) in an animation of \(first.image.size)")
            }
            try add(current.image, at: timestamp, to: encoder, config: &config)
            timestamp += current.duration.roundedMilliseconds
            guard timestamp <= Int(Int32.max) else { throw ImageError.encodingFailed(.webp, "the animation is too long") }
            frame = try nextFrame()
        }
        // The final timestamp gives the last frame its duration.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0 else { throw error(encoder) }
        var output = WebPData()
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else { throw error(encoder) }
        return Data(bytes: bytes, count: output.size)
    }

    /// Hands one frame, as RGBA, to the encoder.
    private func add(_ image: Image, at timestamp: Int, to encoder: OpaquePointer, config: inout WebPConfig) throws {
        let rgba = image.pixelFormat == .rgba8 ? image : image.converted(to: .rgba8)
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageError.encodingFailed(.webp, "libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(rgba.width)
        picture.height = Int32(rgba.height)
        picture.use_argb = 1
        let imported = rgba.withUnsafeBytes { pixels in
            WebPPictureImportRGBA(&picture, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(rgba.bytesPerRow))
        }
        guard imported != 0 else { throw ImageError.encodingFailed(.webp, "cannot import the pixels (out of memory)") }
        guard WebPAnimEncoderAdd(encoder, &picture, Int32(timestamp), &config) != 0 else { throw error(encoder) }
    }

    /// libwebpmux's message for its last failure.
    private func error(_ encoder: OpaquePointer) -> ImageError {
        let message = WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? ""
        return .encodingFailed(.webp, message.isEmpty ? "libwebpmux failed" : message)
    }
}
