public import Foundation

/// Something that writes frames as one animated file of its format.
///
/// Frames are pulled one at a time, so an encoder never needs more than the
/// frame it is writing (and its own state): an animation decoded frame by
/// frame by a frame decoder can be re-encoded without holding
/// all of its frames (``encodeAnimation(loopCount:nextFrame:)``). Every frame is a full
/// canvas, as decoders give them; all must have the first frame's size.
public protocol AnimatedImageEncoding: Sendable {
    /// The format this encoder writes.
    var animationFormat: ImageFormat { get }

    /// Encodes the frames `nextFrame` returns, in order, until it returns `nil`.
    ///
    /// - Parameters:
    ///   - loopCount: How many times the animation plays; 0 for forever.
    ///   - nextFrame: The next full-canvas frame and how long it shows, or
    ///     `nil` after the last one. Its errors end the encode and are rethrown.
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` when there is no frame,
    ///   frames differ in size, or the library fails; `nextFrame`'s errors.
    func encodeAnimation(loopCount: Int, nextFrame: () throws -> (image: Image, duration: Duration)?) throws -> Data
}

extension AnimatedImageEncoding {
    /// Encodes `frames`, each shown for the duration at its index.
    ///
    /// - Throws: ``ImageError/encodingFailed(_:_:)`` when the counts differ
    ///   or the encoder fails.
    public func encodeAnimation(_ frames: [Image], durations: [Duration], loopCount: Int) throws -> Data {
        guard frames.count == durations.count else {
            throw ImageError.encodingFailed(animationFormat, "\(frames.count) frames with \(durations.count) durations")
        }
        var index = 0
        return try encodeAnimation(loopCount: loopCount) {
            guard index < frames.count else { return nil }
            defer { index += 1 }
            return (frames[index], durations[index])
        }
    }

    /// Re-encodes what `decoder` gives from its next frame on (call
    /// ``AnimatedFrameDecoder/rewind()`` first for a used one), with the
    /// durations and loop count of its ``AnimatedFrameDecoder/info``: a GIF
    /// or APNG becomes an animated WebP, and so on. One decoded frame at a
    /// time is held.
    ///
    /// - Throws: the decoder's ``ImageError`` for a bad frame, or the encoder's.
    package func encodeAnimation(from decoder: any AnimatedFrameDecoder) throws -> Data {
        let durations = decoder.info.frameDurations
        return try encodeAnimation(loopCount: decoder.info.loopCount) {
            let index = decoder.nextFrameIndex
            guard let frame = try decoder.decodeNextFrame() else { return nil }
            return (frame, index < durations.count ? durations[index] : .zero)
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded to the nearest and at least 0, as
    /// containers store frame times.
    package var roundedMilliseconds: Int {
        let (seconds, attoseconds) = components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return max(0, Int(min(value.rounded(), Double(Int32.max))))
    }
}
