package import Foundation
package import AsyncWebImage

/// The frames of a GIF animation, decoded with giflib one after another and
/// composited by a `GIFCompositor` (disposal, transparency, clipping).
///
/// The structure comes from a `GIFAnimationScan` made before, so the
/// frame count and delays are known without decoding; the pixels are read
/// by a `GIFFrameReader` positioned at the next frame. A frame whose data
/// is broken throws, and so does every later call until `rewind()`:
/// giflib's position after an error is unknown.
final class GIFAnimatedFrameDecoder: AnimatedFrameDecoder {
    let info: AnimatedImage.Info
    private(set) var nextFrameIndex = 0
    private let data: Data
    private let maxPixelCount: Int
    private let missingColorTable: GIFCoder.MissingColorTablePolicy
    private var reader: GIFFrameReader
    private let compositor: GIFCompositor
    private var failure: ImageError?

    init(
        data: Data, scan: GIFAnimationScan, maxPixelCount: Int, missingColorTable: GIFCoder.MissingColorTablePolicy
    ) throws(ImageError) {
        self.data = data
        self.missingColorTable = missingColorTable
        self.maxPixelCount = maxPixelCount
        info = AnimatedImage.Info(
            canvasWidth: scan.screen.width, canvasHeight: scan.screen.height,
            frameDurations: scan.frames.map { .milliseconds($0.delayCentiseconds * 10) },
            loopCount: scan.storedLoopCount.map { $0 == 0 ? 0 : $0 + 1 } ?? 1
        )
        reader = try GIFFrameReader(data, missingColorTable: missingColorTable)
        compositor = GIFCompositor(width: scan.screen.width, height: scan.screen.height)
    }

    func decodeNextFrame() throws -> Image? {
        guard nextFrameIndex < info.frameCount else { return nil }
        if let failure { throw failure }
        do throws(ImageError) {
            let compositor = compositor
            let frame = try reader.nextFrame(
                maxPixelCount: maxPixelCount, allowsEmpty: true,
                begin: { frame throws(ImageError) in compositor.begin(frame) },
                row: { y, indices in compositor.draw(row: y, indices: indices) }
            )
            guard frame != nil else { throw .undecodable(.gif, "truncated: the file ends before frame \(nextFrameIndex)") }
        } catch {
            failure = error
            throw error
        }
        nextFrameIndex += 1
        return compositor.image()
    }

    func rewind() throws {
        reader = try GIFFrameReader(data, missingColorTable: missingColorTable)
        compositor.reset()
        nextFrameIndex = 0
        failure = nil
    }
}

extension GIFCoder: AnimatedImageDecoding {
    /// A frame decoder for a GIF of two frames or more, `nil` for one frame.
    ///
    /// The blocks are scanned first (no pixel decoded) for the frame count,
    /// delays, disposal and the NETSCAPE2.0 loop count. Then, before any
    /// canvas exists: a screen of zero width or height is
    /// ``ImageError/undecodable(_:_:)``, a screen over
    /// ``ImageDecodingOptions/maxPixelCount`` is ``ImageError/tooLarge(_:limit:actual:)``
    /// (`.pixels`), and frame count × screen over
    /// ``ImageDecodingOptions/maxAnimationPixelCount`` is
    /// ``ImageError/tooLarge(_:limit:actual:)`` (`.animationPixels`) — which
    /// also bounds the work of a file of many tiny frames.
    ///
    /// The loop count is the number of plays, as browsers and ImageMagick
    /// (`Iterations`) read a GIF: the NETSCAPE2.0 value counts repeats
    /// after the first play, so a stored 0 is forever (0), a stored `n` is
    /// `n + 1` plays, and a file without the extension plays once (1).
    package func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)? {
        let scan = try GIFAnimationScan(data)
        guard scan.frames.count > 1 else { return nil }
        guard scan.screen.width > 0, scan.screen.height > 0 else {
            throw ImageError.undecodable(.gif, "a \(scan.screen.width)×\(scan.screen.height) canvas")
        }
        try options.checkPixelLimit(scan.screen)
        let (total, overflow) = scan.screen.pixelCount.multipliedReportingOverflow(by: scan.frames.count)
        guard !overflow, total <= options.maxAnimationPixelCount else {
            throw ImageError.tooLarge(
                .animationPixels, limit: Int64(options.maxAnimationPixelCount), actual: overflow ? nil : Int64(total)
            )
        }
        return try GIFAnimatedFrameDecoder(
            data: data, scan: scan, maxPixelCount: options.maxPixelCount, missingColorTable: missingColorTable
        )
    }
}
