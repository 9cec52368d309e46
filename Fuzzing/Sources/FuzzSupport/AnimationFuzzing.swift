import AsyncWebImage
import Foundation

/// What the animation targets check: a frame decoder made from the input
/// gives only full-canvas RGBA8 frames or typed errors, never more frames
/// than its info lists, and rewinds to the same first frame.
package enum AnimationFuzzing {
    /// Tight limits keep executions fast and still check that they hold.
    package static let options: ImageDecodingOptions = {
        var options = ImageDecodingOptions(maxPixelCount: FuzzInput.maxPixelCount)
        options.maxAnimationPixelCount = 1 << 24
        return options
    }()

    /// Runs `decoder`'s `makeAnimatedFrameDecoder` on `data` and plays what it gives.
    package static func play(_ decoder: any AnimatedImageDecoding, _ data: Data, _ what: String) {
        guard let made = FuzzInput.expectingImageError(what, { try decoder.makeAnimatedFrameDecoder(data, options: options) }),
              let frames = made else { return }
        let info = frames.info
        precondition(info.frameCount > 1, "\(what): an animation of \(info.frameCount) frames")
        precondition(info.canvasWidth * info.canvasHeight * info.frameCount <= options.maxAnimationPixelCount, "\(what): over the limit")
        var first: Image?
        for index in 0...info.frameCount {
            guard let frame = FuzzInput.expectingImageError(what, { try frames.decodeNextFrame() }) else { break }
            guard let frame else {
                precondition(index == info.frameCount, "\(what): nil after \(index) of \(info.frameCount) frames")
                break
            }
            precondition(index < info.frameCount, "\(what): more frames than \(info.frameCount)")
            precondition(frame.width == info.canvasWidth && frame.height == info.canvasHeight && frame.pixelFormat == .rgba8,
                         "\(what): frame \(frame) on a \(info.canvasWidth)×\(info.canvasHeight) canvas")
            FuzzInput.check(frame, options: options, isPreview: false, what)
            if index == 0 { first = frame }
        }
        guard let first else { return }
        _ = FuzzInput.expectingImageError(what) { try frames.rewind() }
        if let again = FuzzInput.expectingImageError(what, { try frames.decodeNextFrame() }) {
            precondition(again?.hasSamePixels(as: first) == true, "\(what): the first frame differs after rewind")
        }
    }
}
