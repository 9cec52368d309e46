import CAvif
public import Foundation
public import AsyncWebImage

/// Writes an animated AVIF (an AV1 image sequence, `avis`) with libavif.
///
/// Each frame is converted as ``AVIFCoder`` converts a still image (8-bit
/// 4:2:0, sRGB signalling) and added with its duration in milliseconds
/// (the track's timescale is 1000 Hz; a zero duration is written as 1 ms,
/// as a sample cannot last no time). The sequence has an alpha plane when
/// the first frame has alpha. AV1 codes frames against earlier ones, so a
/// still scene costs little; every 60th frame is a keyframe, so a player
/// can seek. libavif 0.11 writes no edit list, so the file carries no loop
/// count: browsers and this library's decoder play it forever, whatever
/// `loopCount` says.
public struct AnimatedAVIFEncoder: AnimatedImageEncoding {
    /// ``ImageFormat/avif``.
    public var animationFormat: ImageFormat { .avif }
    /// 0...1, mapped to AV1's quantizer as ``AVIFCoder`` maps it; 0.8 by default.
    public var quality: Double
    /// The encoder's speed, 0 (slowest) to 10 (fastest); 8 by default, as
    /// animations have many frames.
    public var speed: Int
    /// Worker threads for the AV1 encoder; 1 by default.
    public var maxThreads: Int

    /// Creates the encoder.
    ///
    /// - Parameters:
    ///   - quality: 0...1 (clamped); 0.8 by default.
    ///   - speed: 0...10 (clamped); 8 by default.
    ///   - maxThreads: at least 1; 1 by default.
    public init(quality: Double = 0.8, speed: Int = 8, maxThreads: Int = 1) {
        self.quality = quality
        self.speed = min(max(speed, 0), 10)
        self.maxThreads = max(1, maxThreads)
    }

    /// Encodes the frames `nextFrame` returns as one image sequence.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` without a frame, for
    ///   frames of different sizes, or with libavif's message; `nextFrame`'s errors.
    public func encodeAnimation(loopCount: Int, nextFrame: () throws -> (image: Image, duration: Duration)?) throws -> Data {
        guard let first = try nextFrame() else { throw ImageError.encodingFailed(.avif, "an animation needs a frame") }
        guard let encoder = avifEncoderCreate() else { throw ImageError.encodingFailed(.avif, "libavif could not allocate an encoder") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.speed = Int32(speed)
        encoder.pointee.maxThreads = Int32(clamping: maxThreads)
        encoder.pointee.timescale = 1000
        encoder.pointee.keyframeInterval = 60
        let q = AVIFCoder.quantizer(forQuality: quality)
        encoder.pointee.minQuantizer = q
        encoder.pointee.maxQuantizer = q
        encoder.pointee.minQuantizerAlpha = q
        encoder.pointee.maxQuantizerAlpha = q
        let alpha = first.image.pixelFormat.hasAlpha
        var frame: (image: Image, duration: Duration)? = first
        var index = 0
        while let (image, duration) = frame {
            guard image.size == first.image.size else {
                throw ImageError.encodingFailed(.avif, "frame \(index) is \(image.size), the first \(first.image.size)")
            }
            let avif = try AVIFCoder.makeYUVImage(image, alpha: alpha)
            let added = avifEncoderAddImage(encoder, avif, UInt64(max(1, duration.roundedMilliseconds)), AVIF_ADD_IMAGE_FLAG_NONE.rawValue)
            avifImageDestroy(avif)
            guard added == AVIF_RESULT_OK else {
                throw ImageError.encodingFailed(.avif, "frame \(index): " + AVIFCoder.message(added, diagnostics: &encoder.pointee.diag))
            }
            index += 1
            frame = try nextFrame()
        }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let finished = avifEncoderFinish(encoder, &output)
        guard finished == AVIF_RESULT_OK, let bytes = output.data else {
            throw ImageError.encodingFailed(.avif, AVIFCoder.message(finished, diagnostics: &encoder.pointee.diag))
        }
        return Data(bytes: bytes, count: output.size)
    }
}
