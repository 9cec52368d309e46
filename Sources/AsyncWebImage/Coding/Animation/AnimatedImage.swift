import AWILocking
import Synchronization

/// An animation with its frames decoded on demand: the public model of an
/// animated GIF (and of the other animated formats whose coders conform to
/// `AnimatedImageDecoding`), the Linux counterpart of SDWebImage's
/// `SDAnimatedImage`.
///
/// Every frame is a full-canvas ``Image`` (RGBA, straight alpha) after the
/// previous frame's disposal and this frame's blending — what a viewer
/// shows at that time, not the stored sub-rectangle.
///
/// ## Frame buffer
///
/// Frames are decoded in order when asked for (``frame(at:)``) and kept in a
/// buffer of at most ``maxBufferBytes`` bytes (16 MiB by default, like
/// `SDAnimatedImage`'s `maxBufferSize`); when a new frame does not fit, the
/// frames needed last in playback order go first, and the frame just asked
/// for always stays. So a 500-frame animation holds a few canvases, not 500;
/// asking for a frame before the decoder's position starts the decoder over
/// at frame 0. ``preloadAllFrames()`` decodes every frame up front and keeps
/// them all, whatever the bound (SDWebImage's `preloadAllFrames`).
///
/// ## Durations
///
/// ``frameDurations`` apply the browsers' rule: a stored display time of
/// 10 ms or less (GIF delays of 0 and 1 hundredths of a second) plays as
/// 100 ms, as Chrome, Firefox and Safari play them. ``info`` keeps the
/// stored values.
///
/// ## Playback
///
/// ``frames(clock:)`` yields each frame at its time on any `Clock`,
/// honouring ``loopCount``, and ends when its task is cancelled. Each frame
/// it has to decode is CPU work under the loader's CPU permits, the same permits the
/// loader's still decodes take, so many playbacks at once cannot decode
/// more frames at once than the machine has cores.
///
/// All methods are safe to call from any task; frame decoding is serialised
/// by a lock, so two players of one animation take turns.
public final class AnimatedImage: Sendable {
    /// The default bound of the frame buffer: 16 MiB.
    public static let defaultMaxBufferBytes = 16 << 20

    /// The container's facts as stored (durations unadjusted).
    public let info: AnimatedImage.Info
    /// Each frame's display time, with stored times of 10 ms or less as 100 ms.
    public let frameDurations: [Duration]
    /// The most bytes of decoded frames the buffer keeps (at least one frame
    /// is always kept); ignored after ``preloadAllFrames()``.
    public let maxBufferBytes: Int
    /// The limiter whose permits playback's frame decodes hold: the
    /// loader's CPU limit (``ImageLoader/Configuration/cpuLimits``) for an animation it
    /// loaded, the process-wide one by default.
    package let limiter: ConcurrencyLimiter

    /// The size of the canvas every frame is composited on.
    public var canvasSize: PixelSize { PixelSize(width: info.canvasWidth, height: info.canvasHeight) }
    /// The number of frames.
    public var frameCount: Int { info.frameCount }
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int { info.loopCount }

    /// Makes a fresh decoder of the same data, for a derived animation.
    private let makeDecoder: @Sendable () throws -> any AnimatedFrameDecoder
    /// Applied to each decoded frame before it is buffered (a thumbnail's
    /// resampling, a transformer), or `nil`.
    private let frameTransform: (@Sendable (Image) throws -> Image)?
    private let state: Lock<State>

    private struct State: ~Copyable {
        var decoder: any AnimatedFrameDecoder
        var buffer: [Int: Image] = [:]
        var bufferedBytes = 0
        var peakBufferedBytes = 0
        var framesDecoded = 0
        var preloaded = false
        /// Bytes of the frame decoded last: the size of a frame after the
        /// frame transform, which may differ from the canvas.
        var frameBytes: Int?
    }

    /// Creates an animation over `decoder`.
    ///
    /// - Parameters:
    ///   - decoder: The frame decoder, at frame 0; the animation owns it from now on.
    ///   - makeDecoder: Makes another decoder of the same data, used by
    ///     ``applyingToFrames(_:)`` (each animation owns its decoder).
    ///   - maxBufferBytes: The frame buffer's bound in bytes.
    ///   - frameTransform: Applied to every frame after decoding, or `nil`.
    ///   - limiter: Whose permits playback's frame decodes hold; the
    ///     process-wide `ConcurrencyLimiter.shared` by default.
    package convenience init(
        decoder: sending any AnimatedFrameDecoder,
        makeDecoder: @escaping @Sendable () throws -> any AnimatedFrameDecoder,
        maxBufferBytes: Int = AnimatedImage.defaultMaxBufferBytes,
        frameTransform: (@Sendable (Image) throws -> Image)? = nil,
        limiter: ConcurrencyLimiter = .shared
    ) {
        self.init(
            info: decoder.info, decoder: decoder, makeDecoder: makeDecoder, maxBufferBytes: maxBufferBytes,
            frameTransform: frameTransform, limiter: limiter
        )
    }

    private init(
        info: AnimatedImage.Info,
        decoder: sending any AnimatedFrameDecoder,
        makeDecoder: @escaping @Sendable () throws -> any AnimatedFrameDecoder,
        maxBufferBytes: Int,
        frameTransform: (@Sendable (Image) throws -> Image)?,
        limiter: ConcurrencyLimiter
    ) {
        self.info = info
        frameDurations = info.frameDurations.map { $0 <= .milliseconds(10) ? .milliseconds(100) : $0 }
        self.maxBufferBytes = max(0, maxBufferBytes)
        self.limiter = limiter
        self.makeDecoder = makeDecoder
        self.frameTransform = frameTransform
        state = Lock(State(decoder: decoder))
    }

    /// The animation with `transform` applied to every frame (after this
    /// animation's own frame transform), decoded by its own decoder into
    /// its own buffer of the same bound.
    public func applyingToFrames(_ transform: @escaping @Sendable (Image) throws -> Image) throws -> AnimatedImage {
        let combined: @Sendable (Image) throws -> Image
        if let inner = frameTransform {
            combined = { image in try transform(inner(image)) }
        } else {
            combined = transform
        }
        return AnimatedImage(
            info: info, decoder: try makeDecoder(), makeDecoder: makeDecoder,
            maxBufferBytes: maxBufferBytes, frameTransform: combined, limiter: limiter
        )
    }

    /// Frame `index` as a full-canvas image, from the buffer or decoded now
    /// (with the frames before it, when the decoder is past it or behind it),
    /// under the CPU permits of the loader the animation was decoded by — so a frame
    /// decode waits its turn with the loader's other work instead of taking
    /// a core on the caller's thread.
    ///
    /// - Throws: ``ImageError`` when this frame (or one before it) is bad;
    ///   frames before a bad one stay available. `index` out of range is
    ///   ``ImageError/invalidImage(_:)``.
    public func frame(at index: Int) async throws -> Image {
        if let buffered = bufferedFrame(at: index) { return buffered }
        return try await limiter.withPermit { try decodeFrame(at: index) }
    }

    /// Every frame with its duration, in order, decoded under the CPU
    /// CPU permit one at a time: all of an animation in one call, for an
    /// encoder or an export.
    ///
    /// Each frame is a full canvas (`canvasSize` × 4 bytes as RGBA): an
    /// animation of many large frames is large. ``Playback`` (``frames()``)
    /// plays one without holding it all.
    ///
    /// - Throws: ``ImageError`` from the first bad frame; `CancellationError`.
    public func allFrames() async throws -> [Frame] {
        var frames: [Frame] = []
        frames.reserveCapacity(frameCount)
        for index in 0..<frameCount {
            try Task.checkCancellation()
            frames.append(Frame(index: index, loop: 0, image: try await frame(at: index), duration: frameDurations[index]))
        }
        return frames
    }

    /// ``frame(at:)`` on the calling thread, taking no permit: for work that
    /// already holds a CPU permit (an encoder fed one frame at a
    /// time inside it, playback's own decode). Elsewhere call ``frame(at:)``,
    /// which waits its turn for a core.
    ///
    /// - Throws: as ``frame(at:)``.
    public func decodeFrame(at index: Int) throws -> Image {
        guard (0..<frameCount).contains(index) else {
            throw ImageError.invalidImage("frame \(index) of an animation of \(frameCount)")
        }
        return try state.withLock { state throws -> Image in
            if let image = state.buffer[index] { return image }
            if state.decoder.nextFrameIndex > index { try state.decoder.rewind() }
            while true {
                let position = state.decoder.nextFrameIndex
                guard let decoded = try state.decoder.decodeNextFrame() else {
                    throw ImageError.undecodable(.unknown, "the animation ends before frame \(index)")
                }
                state.framesDecoded += 1
                guard position == index else { continue }
                let image = try frameTransform.map { try $0(decoded) } ?? decoded
                Self.insert(image, at: index, into: &state, bound: maxBufferBytes, frameCount: frameCount)
                return image
            }
        }
    }

    /// Frame `index` if the buffer holds it, decoding nothing.
    func bufferedFrame(at index: Int) -> Image? {
        state.withLock { $0.buffer[index] }
    }

    /// Decodes every frame now and keeps them all: later ``frame(at:)``
    /// calls and playback decode nothing. The buffer bound no longer applies.
    ///
    /// - Throws: ``ImageError`` from the first bad frame.
    public func preloadAllFrames() throws {
        state.withLock { $0.preloaded = true }
        for index in 0..<frameCount { _ = try decodeFrame(at: index) }
    }

    /// Frames decoded so far (every decode counts, including those repeated
    /// after the buffer dropped a frame or the decoder started over).
    public var framesDecoded: Int { state.withLock { $0.framesDecoded } }
    /// Bytes of frames in the buffer now.
    public var bufferedBytes: Int { state.withLock { $0.bufferedBytes } }
    /// The most bytes the buffer has held at once.
    public var peakBufferedBytes: Int { state.withLock { $0.peakBufferedBytes } }
    /// Whether ``preloadAllFrames()`` was called.
    public var isPreloaded: Bool { state.withLock { $0.preloaded } }

    /// What the animation costs a cache beyond its first frame: all frames
    /// once preloaded, otherwise what the buffer may hold (its bound, or
    /// every frame when they fit in less). Frames are counted at the size
    /// of the last one decoded (a transform may shrink them), the canvas
    /// as RGBA before any.
    public var cost: Int {
        state.withLock { state in
            let frameBytes = state.frameBytes ?? canvasSize.pixelCount * 4
            let all = frameBytes.multipliedReportingOverflow(by: frameCount)
            let everything = all.overflow ? Int.max : all.partialValue
            return state.preloaded ? max(state.bufferedBytes, everything) : min(everything, max(maxBufferBytes, frameBytes))
        }
    }

    /// Buffers `image` as frame `index`, then drops the frames needed last
    /// (the furthest ahead of `index` in playback order, wrapping around)
    /// until the buffer is within `bound`; `index` itself stays.
    private static func insert(_ image: Image, at index: Int, into state: inout State, bound: Int, frameCount: Int) {
        state.buffer[index] = image
        state.bufferedBytes += image.cost
        state.frameBytes = image.cost
        if !state.preloaded {
            while state.bufferedBytes > bound, state.buffer.count > 1 {
                let victim = state.buffer.keys.max { (($0 - index + frameCount) % frameCount) < (($1 - index + frameCount) % frameCount) }!
                state.bufferedBytes -= state.buffer.removeValue(forKey: victim)!.cost
            }
        }
        state.peakBufferedBytes = max(state.peakBufferedBytes, state.bufferedBytes)
    }
}
