import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageGIF

/// Fuzzes GIF animation decoding: the block scan (frame count, delays,
/// disposal, loop count), the canvas and animation pixel limits, every
/// frame decoded with giflib and composited (disposal 0–3, clipping,
/// transparency, empty frames), a rewind and second pass that must give
/// the same frames, and ``AnimatedImage`` with a one-frame buffer asked for
/// frames out of order. Anything but valid full-canvas frames or an
/// `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIFAnimation(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let options = {
        var options = ImageDecodingOptions(maxPixelCount: FuzzInput.maxPixelCount)
        // 16 megapixels over all frames keeps one input's work small.
        options.maxAnimationPixelCount = 1 << 24
        return options
    }()
    let coder = GIFCoder()
    guard let decoder = FuzzInput.expectingImageError("makeAnimatedFrameDecoder", {
        try coder.makeAnimatedFrameDecoder(data, options: options)
    }) ?? nil else { return 0 }
    let info = decoder.info
    precondition(info.frameCount > 1 && info.canvasWidth > 0 && info.canvasHeight > 0, "bad info \(info)")
    precondition(info.canvasWidth * info.canvasHeight * info.frameCount <= options.maxAnimationPixelCount, "limit not held")
    var first: [Image] = []
    for _ in 0..<info.frameCount {
        guard let frame = FuzzInput.expectingImageError("decodeNextFrame", { try decoder.decodeNextFrame() }) else { break }
        guard let frame else { fatalError("nil before frame \(info.frameCount)") }
        precondition(frame.width == info.canvasWidth && frame.height == info.canvasHeight, "frame size \(frame.size)")
        precondition(frame.pixelFormat == .rgba8 && frame.pixels.count == frame.width * frame.height * 4, "frame bytes")
        first.append(frame)
    }
    if first.count == info.frameCount {
        precondition(FuzzInput.expectingImageError("after the last", { try decoder.decodeNextFrame() }) == .some(nil), "a frame past the end")
    }
    guard FuzzInput.expectingImageError("rewind", { try decoder.rewind() }) != nil else { return 0 }
    for expected in first.prefix(3) {
        let again = FuzzInput.expectingImageError("second pass", { try decoder.decodeNextFrame() })
        precondition(again??.hasSamePixels(as: expected) == true, "the second pass differs")
    }
    // The model: frames out of order through a one-frame buffer
    guard let fresh = FuzzInput.expectingImageError("model decoder", { try coder.makeAnimatedFrameDecoder(data, options: options) }) ?? nil else {
        fatalError("the decoder could be made once but not twice")
    }
    let animation = AnimatedImage(decoder: fresh, makeDecoder: {
        guard let decoder = try coder.makeAnimatedFrameDecoder(data, options: options) else { throw ImageError.undecodable(.gif, "gone") }
        return decoder
    }, maxBufferBytes: 1)
    for index in [first.count - 1, 0, first.count / 2] where index >= 0 && index < first.count {
        let frame = FuzzInput.expectingImageError("frame(at:)", { try animation.decodeFrame(at: index) })
        precondition(frame?.hasSamePixels(as: first[index]) == true, "frame \(index) differs through the model")
    }
    precondition(animation.bufferedBytes <= info.canvasWidth * info.canvasHeight * 4, "buffer over its bound")
    return 0
}
