import CWebP
package import Foundation
package import AsyncWebImage

/// The frames of an animated WebP, composited by libwebpdemux's
/// `WebPAnimDecoder` (ANMF offsets, blend and dispose methods, the
/// background rule of the container spec), one on each call.
///
/// Made by ``WebPCoder/makeAnimatedFrameDecoder(_:options:)``, which reads
/// the canvas, frame count, loop count and durations with `WebPDemux` and
/// checks the limits before libwebp allocates its canvas.
///
/// A file whose last frames are cut off (an `ANMF` chunk that runs past the
/// end of the data) still plays the frames that are whole: they are handed
/// to `WebPAnimDecoder` as a file ending after the last whole frame, and
/// the first missing frame fails with ``ImageError/undecodable(_:_:)``.
///
/// Not `Sendable`: one task at a time, as ``AnimatedFrameDecoder`` says.
final class WebPAnimationDecoder: AnimatedFrameDecoder {
    let info: AnimatedImage.Info
    private(set) var nextFrameIndex = 0

    /// A private copy of the file (or of its whole frames): `WebPAnimDecoder`
    /// reads from it for as long as it lives.
    private let bytes: UnsafeMutableRawBufferPointer
    private let decoder: OpaquePointer
    /// How many frames `decoder` can give; fewer than `info.frameCount`
    /// when the file was cut off.
    private let decodableFrames: Int
    /// The `ICCP` chunk's profile, applied to every frame as ``WebPCoder``
    /// applies it to a still image.
    private let iccProfile: Data?
    private let options: ImageDecodingOptions

    /// Reads the container and prepares the decoder; no pixel memory is
    /// allocated before the limits have passed.
    ///
    /// - Parameters:
    ///   - webp: The whole file.
    ///   - options: ``ImageDecodingOptions/maxPixelCount`` is checked against
    ///     the canvas; ``ImageDecodingOptions/maxAnimationPixelCount``
    ///     against frames × canvas when `checksAnimationLimit` is set.
    ///   - checksAnimationLimit: `false` when only the first frame is wanted.
    ///   - managesColor: `false` to hand frames over in the file's colour
    ///     space (``WebPCoder`` converts its first-frame image itself, after
    ///     resampling it).
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)``, or
    ///   ``ImageError/undecodable(_:_:)`` when the container is bad or not one frame is whole.
    ///   - layout: The file's layout when the caller has read it already.
    init(
        _ webp: UnsafeRawBufferPointer, options: ImageDecodingOptions, checksAnimationLimit: Bool = true, layout: Layout? = nil,
        managesColor: Bool = true
    ) throws(ImageError) {
        let layout = if let layout { layout } else { try Self.readLayout(webp, options: options, checksAnimationLimit: checksAnimationLimit) }
        let canvas = PixelSize(width: layout.canvasWidth, height: layout.canvasHeight)
        try options.checkPixelLimit(canvas)
        if checksAnimationLimit {
            let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: layout.durations.count)
            guard !overflow, total <= options.maxAnimationPixelCount else {
                throw .tooLarge(.animationPixels, limit: Int64(options.maxAnimationPixelCount), actual: overflow ? nil : Int64(total))
            }
        }
        info = AnimatedImage.Info(
            canvasWidth: layout.canvasWidth, canvasHeight: layout.canvasHeight,
            frameDurations: layout.durations.map { .milliseconds($0) }, loopCount: layout.loopCount
        )
        decodableFrames = layout.wholeFrames
        iccProfile = managesColor ? WebPContainer.chunk("ICCP", in: webp) : nil
        self.options = options

        let usable = layout.usableByteCount
        bytes = .allocate(byteCount: usable, alignment: 16)
        bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: webp[..<usable]))
        if usable < webp.count || layout.wholeFrames < layout.durations.count {
            // The RIFF size must end where the copy does, or the demuxer calls the file truncated.
            let riffSize = UInt32(usable - 8)
            for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * index)) }
        }

        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            bytes.deallocate()
            throw .undecodable(.webp, "libwebpdemux version mismatch")
        }
        // Straight alpha, as Image stores it; one thread, the caller's.
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        var data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: usable)
        guard let decoder = WebPAnimDecoderNew(&data, &decoderOptions) else {
            bytes.deallocate()
            throw .undecodable(.webp, "libwebpdemux refused the animation")
        }
        self.decoder = decoder
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        bytes.deallocate()
    }

    func decodeNextFrame() throws -> Image? {
        guard nextFrameIndex < info.frameCount else { return nil }
        guard nextFrameIndex < decodableFrames, WebPAnimDecoderHasMoreFrames(decoder) != 0 else {
            throw ImageError.undecodable(.webp, "truncated: frame \(nextFrameIndex) runs past the end of the data")
        }
        var canvas: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
            throw ImageError.undecodable(.webp, "corrupt bitstream in frame \(nextFrameIndex)")
        }
        nextFrameIndex += 1
        let count = info.canvasWidth * info.canvasHeight * 4
        let image = Image.make(width: info.canvasWidth, height: info.canvasHeight, pixelFormat: .rgba8, format: .webp) { pixels in
            pixels.copyMemory(from: UnsafeRawBufferPointer(start: canvas, count: count))
        }
        return ColorManager.manage(consume image, iccProfile: iccProfile, options: options)
    }

    func rewind() throws {
        WebPAnimDecoderReset(decoder)
        nextFrameIndex = 0
    }

    /// The most frames an animated WebP may have. libwebpdemux finds each
    /// frame by walking its list from the first, so reading n frames costs
    /// n²/2 steps: 50,000 tiny frames (a 2.4 MB file) take seconds of CPU,
    /// 10,000 about a tenth of one.
    static let maximumFrameCount = 10_000

    /// What the container says, read by `WebPDemux` (or, for a file cut
    /// off inside its frames, `WebPDemuxPartial`).
    struct Layout {
        var canvasWidth: Int
        var canvasHeight: Int
        var loopCount: Int
        /// Every frame the container declares, whole or not, in milliseconds.
        var durations: [Int]
        /// The frames whose data is all there.
        var wholeFrames: Int
        /// The bytes up to the end of the last whole frame (all of them for
        /// a sound file).
        var usableByteCount: Int
        /// Whether the VP8X header marks the file as an animation.
        var isAnimation: Bool
    }

    /// Reads the canvas, loop count and every frame's duration.
    static func readLayout(
        _ webp: UnsafeRawBufferPointer, options: ImageDecodingOptions, checksAnimationLimit: Bool
    ) throws(ImageError) -> Layout {
        let limits = (options, checksAnimationLimit)
        if let layout = try readLayout(webp, riffSizeFromFile: false, limits: limits) { return layout }
        // A chunk that claims to run past the RIFF size is a parse error to
        // libwebpdemux, which then gives no frame at all. Read as a file cut
        // off there (the RIFF size taken as unbounded), the frames before
        // it are whole and can be played.
        guard webp.count >= 12 else { throw .undecodable(.webp, "malformed container") }
        var patched = [UInt8](webp)
        for index in 0..<4 { patched[4 + index] = 0xFF }
        patched[4] = 0xF0
        patched[7] = 0x7F
        let layout = patched.withUnsafeBytes { bytes in Result { () throws(ImageError) in try readLayout(bytes, riffSizeFromFile: true, limits: limits) } }
        guard let found = try layout.get() else { throw .undecodable(.webp, "malformed container") }
        return found
    }

    /// The layout, or `nil` when libwebpdemux calls the container malformed.
    private static func readLayout(
        _ webp: UnsafeRawBufferPointer, riffSizeFromFile: Bool, limits: (options: ImageDecodingOptions, animation: Bool)
    ) throws(ImageError) -> Layout? {
        guard let base = webp.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .undecodable(.webp, "no data") }
        var data = WebPData(bytes: base, size: webp.count)
        var state = WEBP_DEMUX_PARSE_ERROR
        // Partial parsing reads a cut-off file as far as it goes; a sound
        // file reaches WEBP_DEMUX_DONE the same way.
        guard let demux = WebPDemuxPartial(&data, &state), state != WEBP_DEMUX_PARSE_ERROR else { return nil }
        defer { WebPDemuxDelete(demux) }
        let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
        var layout = Layout(
            canvasWidth: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)),
            canvasHeight: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)),
            loopCount: Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT)),
            durations: [], wholeFrames: 0, usableByteCount: webp.count,
            isAnimation: flags & ANIMATION_FLAG.rawValue != 0
        )
        guard state != WEBP_DEMUX_PARSING_HEADER, layout.canvasWidth > 0, layout.canvasHeight > 0 else {
            throw .undecodable(.webp, "truncated: the data ends inside the headers")
        }
        // The limits, from the header's counts, before any frame is walked.
        let frameCount = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
        let canvas = PixelSize(width: layout.canvasWidth, height: layout.canvasHeight)
        try limits.options.checkPixelLimit(canvas)
        if limits.animation {
            // One more frame than parsed may be cut off inside its chunk.
            let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: frameCount + (state == WEBP_DEMUX_DONE ? 0 : 1))
            guard !overflow, total <= limits.options.maxAnimationPixelCount else {
                throw .tooLarge(.animationPixels, limit: Int64(limits.options.maxAnimationPixelCount), actual: overflow ? nil : Int64(total))
            }
        }
        guard frameCount <= maximumFrameCount else {
            throw .undecodable(.webp, "\(frameCount) frames, over the \(maximumFrameCount) an animated WebP may have here")
        }
        layout.durations.reserveCapacity(frameCount)
        var iterator = WebPIterator()
        var seenIncomplete = false
        if frameCount > 0, WebPDemuxGetFrame(demux, 1, &iterator) != 0 {
            defer { WebPDemuxReleaseIterator(&iterator) }
            repeat {
                layout.durations.append(Int(iterator.duration))
                if iterator.complete != 0 && !seenIncomplete {
                    layout.wholeFrames += 1
                    // The frame's image data ends its ANMF chunk; chunks are padded to even sizes.
                    let end = UnsafeRawPointer(iterator.fragment.bytes) - UnsafeRawPointer(base) + iterator.fragment.size
                    layout.usableByteCount = min(webp.count, end + end % 2)
                } else {
                    seenIncomplete = true
                }
            } while WebPDemuxNextFrame(&iterator) != 0
        }
        if state == WEBP_DEMUX_DONE && !riffSizeFromFile {
            layout.usableByteCount = webp.count
        } else if layout.durations.count == layout.wholeFrames {
            // The data ends where a frame's chunk begins or inside its
            // header: the container promised at least one more frame.
            layout.durations.append(0)
        }
        guard layout.wholeFrames > 0 else { throw .undecodable(.webp, "truncated: not one frame is whole") }
        return layout
    }
}

extension WebPCoder: AnimatedImageDecoding {
    /// A frame decoder (libwebpdemux's `WebPAnimDecoder`) for an animated
    /// WebP of more than one frame; `nil` for a still WebP or an animation
    /// of one frame (``decode(_:options:)`` decodes those).
    ///
    /// The container is read first: canvas, loop count and each frame's
    /// duration; ``ImageDecodingOptions/maxPixelCount`` (canvas) and
    /// ``ImageDecodingOptions/maxAnimationPixelCount`` (frames × canvas) are
    /// checked before libwebp allocates anything, and an animation of more
    /// than 10,000 frames is refused (libwebpdemux's cost per file grows with
    /// the square of the frame count). Frames are decoded when
    /// asked for, in order, into full RGBA canvases (straight alpha).
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over a limit,
    ///   ``ImageError/undecodable(_:_:)`` for a bad container. A file cut off
    ///   inside a later frame gives a decoder whose whole frames decode and
    ///   whose first cut-off frame throws.
    package func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)? {
        try data.withUnsafeBytes { webp throws -> (any AnimatedFrameDecoder)? in
            let features = try WebPContainer.features(webp)
            guard features.has_animation != 0 else { return nil }
            let layout = try WebPAnimationDecoder.readLayout(webp, options: options, checksAnimationLimit: true)
            guard layout.durations.count > 1 else { return nil }
            return try WebPAnimationDecoder(webp, options: options, layout: layout)
        }
    }
}
