package import Foundation

/// Decodes the frames of one animation in order, each one composited onto
/// the full canvas after the previous frame's disposal and with its own
/// blending, so every frame it returns is what a viewer shows at that time.
///
/// It holds the decoding state of one file (the canvas so far, the reader's
/// position), so it is a reference type used by one task at a time; a frame
/// buffer owns it and serialises the calls.
package protocol AnimatedFrameDecoder: AnyObject {
    /// The canvas, durations and loop count, read when the decoder was made.
    var info: AnimatedImage.Info { get }

    /// The index of the frame ``decodeNextFrame()`` returns next.
    var nextFrameIndex: Int { get }

    /// Decodes the next frame onto the canvas and returns the whole canvas
    /// (straight alpha, RGBA8), or `nil` after the last frame.
    ///
    /// - Throws: ``ImageError`` when this frame's data is bad. Frames
    ///   returned before stay valid.
    func decodeNextFrame() throws -> Image?

    /// Starts over at frame 0 with an empty canvas, for the next loop.
    func rewind() throws
}

/// A decoder that can also read a format's animations frame by frame.
package protocol AnimatedImageDecoding: ImageDecoding {
    /// A frame decoder for `data` when it holds an animation of more than one
    /// frame, or `nil` when it is a still image (decode it with
    /// ``ImageDecoding/decode(_:options:)``).
    ///
    /// Checks ``ImageDecodingOptions/maxPixelCount`` against the canvas and
    /// ``ImageDecodingOptions/maxAnimationPixelCount`` against frame count ×
    /// canvas before any pixel buffer is allocated.
    /// - Throws: ``ImageError`` for data that is not a valid animation.
    func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)?
}
