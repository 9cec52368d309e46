import CAvif
package import Foundation
package import AsyncWebImage

/// The frames of an AVIF image sequence (`avis`), in order.
///
/// AV1 frames of a sequence are whole pictures (inter prediction lives in
/// the AV1 decoder, not in compositing), so each frame is converted to
/// RGBA8 as it is and colour managed as a still AVIF is (the `colr`
/// profile). The file's bytes are copied once into memory this decoder
/// owns, because libavif reads them for as long as the decoder lives.
///
/// Not `Sendable`: one task at a time, as ``AnimatedFrameDecoder`` says.
final class AVIFAnimationDecoder: AnimatedFrameDecoder {
    let info: AnimatedImage.Info
    private(set) var nextFrameIndex = 0

    private let bytes: UnsafeMutableRawBufferPointer
    private let decoder: AVIFDecoderHandle
    private let iccProfile: Data?
    private let options: ImageDecodingOptions

    /// Parses `data`; `nil` when it holds one image (a still AVIF).
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when a frame is over
    ///   ``ImageDecodingOptions/maxPixelCount`` or all frames over
    ///   ``ImageDecodingOptions/maxAnimationPixelCount``, before any AV1
    ///   data is decoded; ``ImageError/undecodable(_:_:)`` with libavif's message.
    init?(_ data: Data, options: ImageDecodingOptions, maxThreads: Int, strictness: AVIFCoder.Strictness) throws(ImageError) {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        // An initializer that returns nil or throws runs no deinit: until the
        // end, where the decoder owns them, the bytes are freed here — on
        // every still AVIF (nil) and every file over a limit (a throw).
        var owned = false
        defer { if !owned { bytes.deallocate() } }
        let decoder = try AVIFDecoderHandle(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[..<data.count]), maxThreads: maxThreads, strictness: strictness
        )
        try decoder.parse()
        self.bytes = bytes
        self.decoder = decoder
        guard decoder.imageCount > 1, let image = decoder.raw.pointee.image else { return nil }
        let canvas = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        try options.checkPixelLimit(canvas)
        let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: decoder.imageCount)
        guard !overflow, total <= options.maxAnimationPixelCount else {
            throw .tooLarge(.animationPixels, limit: Int64(options.maxAnimationPixelCount), actual: overflow ? nil : Int64(total))
        }
        decoder.limit(toPixels: options.maxPixelCount)
        info = AnimatedImage.Info(
            canvasWidth: canvas.width, canvasHeight: canvas.height,
            frameDurations: (0..<decoder.imageCount).map { decoder.duration(ofFrame: $0) },
            // libavif 0.11 reads no edit list: a sequence plays forever, as browsers play one without it.
            loopCount: 0
        )
        iccProfile = image.pointee.icc.data.map { Data(bytes: $0, count: image.pointee.icc.size) }
        self.options = options
        owned = true
    }

    deinit {
        bytes.deallocate()
    }

    func decodeNextFrame() throws -> Image? {
        guard nextFrameIndex < info.frameCount else { return nil }
        try decoder.decodeFirstImage()
        let frame = try decoder.image
        let size = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        guard size == PixelSize(width: info.canvasWidth, height: info.canvasHeight) else {
            throw ImageError.undecodable(.avif, "frame \(nextFrameIndex) is \(size), the sequence \(info.canvasWidth)×\(info.canvasHeight)")
        }
        let image = try AVIFCoder.convertToRGB(frame, size: size, hasAlpha: true)
        nextFrameIndex += 1
        return ColorManager.manage(consume image, iccProfile: iccProfile, options: options)
    }

    func rewind() throws {
        try decoder.reset()
        nextFrameIndex = 0
    }
}

extension AVIFCoder: AnimatedImageDecoding {
    /// A frame decoder for an AVIF image sequence of more than one frame;
    /// `nil` for a still AVIF (decode it with ``decode(_:options:)``).
    ///
    /// The container is parsed first, no AV1 data decoded: the canvas (the
    /// sequence's size), each frame's duration from the sample table, and
    /// the limits — ``ImageDecodingOptions/maxPixelCount`` against the
    /// canvas, ``ImageDecodingOptions/maxAnimationPixelCount`` against frame
    /// count × canvas — before any pixel buffer. Frames come full-canvas,
    /// RGBA8 (opaque where the sequence has no alpha), straight alpha. The
    /// loop count is 0 (forever): libavif 0.11 does not read the edit list
    /// that may say otherwise, and browsers loop such sequences.
    ///
    /// - Throws: ``ImageError`` for data libavif cannot parse or over the limits.
    package func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)? {
        try AVIFAnimationDecoder(data, options: options, maxThreads: maxThreads, strictness: strictness)
    }
}
