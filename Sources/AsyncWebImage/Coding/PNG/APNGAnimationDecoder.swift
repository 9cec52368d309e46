import CSpng
package import Foundation

/// The frames of an APNG, composited on the canvas as the APNG
/// specification says: each frame's `dispose_op` (none, background —
/// cleared to transparent black —, previous) applied before the next is
/// drawn, its `blend_op` (source replaces, over alpha-composites) when it
/// is drawn.
///
/// Each frame's image data is decoded by libspng as a PNG of its own (the
/// file's `IHDR` at the frame's size, its `PLTE` and `tRNS`, the frame's
/// `IDAT` or `fdAT` data), to RGBA8 with `tRNS` applied. Each composited
/// frame then goes through colour management as a still PNG does (the
/// file's `iCCP`, `sRGB` or `gAMA`/`cHRM`, converted to sRGB or kept, as
/// the options say). Frames are decoded when asked for, in order.
///
/// Not `Sendable`: one task at a time, as `AnimatedFrameDecoder` says.
final class APNGAnimationDecoder: AnimatedFrameDecoder {
    let info: AnimatedImage.Info
    private(set) var nextFrameIndex = 0

    private let data: Data
    private let container: APNGContainer
    /// The file's colour declaration, applied to every frame.
    private let colorProfile: EmbeddedColorProfile?
    private let options: ImageDecodingOptions
    /// The canvas as the last frame left it (before its disposal).
    private var canvas: [UInt8]
    /// The region the previous frame's `dispose_op` "previous" restores, as it was before that frame.
    private var saved: [UInt8] = []

    /// Reads the container; no pixel memory is allocated before the limits pass.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over
    ///   ``ImageDecodingOptions/maxPixelCount`` (canvas) or
    ///   ``ImageDecodingOptions/maxAnimationPixelCount`` (frames × canvas);
    ///   ``ImageError/undecodable(_:_:)`` for a broken animation.
    init(_ data: Data, container: APNGContainer, options: ImageDecodingOptions) throws(ImageError) {
        let size = PixelSize(width: container.canvasWidth, height: container.canvasHeight)
        try options.checkPixelLimit(size)
        let durations = Self.durations(of: container)
        let (total, overflow) = size.pixelCount.multipliedReportingOverflow(by: durations.count)
        guard !overflow, total <= options.maxAnimationPixelCount else {
            throw .tooLarge(.animationPixels, limit: Int64(options.maxAnimationPixelCount), actual: overflow ? nil : Int64(total))
        }
        self.data = data
        self.container = container
        self.options = options
        colorProfile = data.withUnsafeBytes { PNGColorChunkReader.profile(in: $0, limit: options.maximumColorProfileBytes) }
        info = AnimatedImage.Info(
            canvasWidth: size.width, canvasHeight: size.height, frameDurations: durations, loopCount: container.playCount
        )
        canvas = []
    }

    /// Each frame's delay; for a file cut between chunks, a zero one more
    /// for the next frame the container promised, which fails when its turn comes.
    static func durations(of container: APNGContainer) -> [Duration] {
        var durations = container.frames.map(\.duration)
        if container.isTruncated && durations.count < container.declaredFrameCount { durations.append(.zero) }
        return durations
    }

    func decodeNextFrame() throws -> Image? {
        let index = nextFrameIndex
        guard index < info.frameCount else { return nil }
        guard index < container.frames.count else {
            throw ImageError.undecodable(.png, "truncated: frame \(index) is missing")
        }
        let width = info.canvasWidth
        if canvas.isEmpty { canvas = [UInt8](repeating: 0, count: width * info.canvasHeight * 4) }
        if index > 0 { dispose(container.frames[index - 1], isFirst: index == 1) }
        let frame = container.frames[index]
        let pixels = try decodePixels(of: frame, index: index)
        if frame.disposeOp == 2 { saved = copyRegion(frame) }
        draw(pixels, frame)
        nextFrameIndex += 1
        let image = Image.make(width: width, height: info.canvasHeight, pixelFormat: .rgba8, format: .png) { out in
            canvas.withUnsafeBytes { out.copyMemory(from: $0) }
        }
        // Converted after compositing, as viewers show the composited frame.
        return ColorManager.manage(consume image, profile: colorProfile, options: options)
    }

    func rewind() throws {
        nextFrameIndex = 0
        canvas = []
        saved = []
    }

    /// Applies `frame`'s `dispose_op` to its region; "previous" on the
    /// first frame counts as "background", as the specification says.
    private func dispose(_ frame: APNGContainer.Frame, isFirst: Bool) {
        switch frame.disposeOp {
        case 1:
            clear(frame)
        case 2 where isFirst:
            clear(frame)
        case 2:
            forEachRow(of: frame) { canvasStart, regionStart, count in
                canvas.replaceSubrange(canvasStart..<(canvasStart + count), with: saved[regionStart..<(regionStart + count)])
            }
        default:
            break
        }
    }

    /// Clears `frame`'s region to transparent black.
    private func clear(_ frame: APNGContainer.Frame) {
        forEachRow(of: frame) { canvasStart, _, count in
            for offset in canvasStart..<(canvasStart + count) { canvas[offset] = 0 }
        }
    }

    /// The canvas bytes under `frame`, row after row.
    private func copyRegion(_ frame: APNGContainer.Frame) -> [UInt8] {
        var region: [UInt8] = []
        region.reserveCapacity(frame.width * frame.height * 4)
        forEachRow(of: frame) { canvasStart, _, count in region += canvas[canvasStart..<(canvasStart + count)] }
        return region
    }

    /// Draws `pixels` (the frame's RGBA8 rows) by its `blend_op`.
    private func draw(_ pixels: [UInt8], _ frame: APNGContainer.Frame) {
        canvas.withUnsafeMutableBufferPointer { canvas in
            pixels.withUnsafeBufferPointer { source in
                forEachRow(of: frame) { canvasStart, regionStart, count in
                    if frame.blendOp == 0 {
                        for offset in 0..<count { canvas[canvasStart + offset] = source[regionStart + offset] }
                        return
                    }
                    for pixel in stride(from: 0, to: count, by: 4) {
                        let s = regionStart + pixel, d = canvasStart + pixel
                        let alpha = Int(source[s + 3])
                        if alpha == 255 || canvas[d + 3] == 0 {
                            if alpha != 0 { for c in 0..<4 { canvas[d + c] = source[s + c] } }
                            continue
                        }
                        guard alpha != 0 else { continue }
                        // Straight-alpha "over", in integers scaled by 255²: the
                        // source's weight is its alpha, the canvas's what shows through.
                        let sourceWeight = alpha * 255
                        let canvasWeight = (255 - alpha) * Int(canvas[d + 3])
                        let total = sourceWeight + canvasWeight
                        for c in 0..<3 {
                            canvas[d + c] = UInt8((Int(source[s + c]) * sourceWeight + Int(canvas[d + c]) * canvasWeight) / total)
                        }
                        canvas[d + 3] = UInt8(total / 255)
                    }
                }
            }
        }
    }

    /// Calls `body` with each row of `frame`'s region: its start in the
    /// canvas, its start in a frame-sized buffer, and its length in bytes.
    private func forEachRow(of frame: APNGContainer.Frame, _ body: (Int, Int, Int) -> Void) {
        let rowBytes = frame.width * 4
        for row in 0..<frame.height {
            body(((frame.y + row) * info.canvasWidth + frame.x) * 4, row * rowBytes, rowBytes)
        }
    }

    /// The frame's pixels as RGBA8, by libspng, from a PNG made of the
    /// file's header at the frame's size, the shared chunks and the frame's data.
    private func decodePixels(of frame: APNGContainer.Frame, index: Int) throws -> [UInt8] {
        guard !frame.dataRanges.isEmpty else {
            let cut = container.isTruncated && index == container.frames.count - 1
            throw ImageError.undecodable(.png, cut ? "truncated: frame \(index) is cut off" : "APNG: frame \(index) has no image data")
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let dataCount = frame.dataRanges.reduce(0) { $0 + $1.count }
        guard dataCount <= Int(Int32.max) else { throw ImageError.undecodable(.png, "APNG: frame \(index) has too much data") }
        png.reserveCapacity(8 + 25 + 12 + dataCount + 12 + container.sharedChunks.reduce(0) { $0 + $1.count })
        var header = container.header
        Self.store(UInt32(frame.width), into: &header, at: 0)
        Self.store(UInt32(frame.height), into: &header, at: 4)
        Self.appendChunk("IHDR", [header[...]], to: &png)
        data.withUnsafeBytes { file in
            for range in container.sharedChunks { png += file[range] }
            Self.appendChunk("IDAT", frame.dataRanges.map { file[$0] }, to: &png)
        }
        Self.appendChunk("IEND", [ArraySlice<UInt8>](), to: &png)

        return try png.withUnsafeBytes { buffer throws -> [UInt8] in
            let context = try SpngContext(decoding: buffer)
            var size = 0
            let format = Int32(SPNG_FMT_RGBA8.rawValue)
            try context.check(spng_decoded_image_size(context.raw, format, &size))
            guard size == frame.width * frame.height * 4 else { throw ImageError.undecodable(.png, "APNG: frame \(index) has a bad size") }
            var pixels = [UInt8](repeating: 0, count: size)
            let code = pixels.withUnsafeMutableBytes {
                spng_decode_image(context.raw, $0.baseAddress, size, format, Int32(SPNG_DECODE_TRNS.rawValue))
            }
            guard code == 0 else {
                throw ImageError.undecodable(.png, "APNG: frame \(index): \(SpngContext.message(code))")
            }
            return pixels
        }
    }

    /// Appends a chunk of `type` whose data is the concatenation of `pieces`.
    private static func appendChunk<Bytes: Collection<UInt8>>(_ type: StaticString, _ pieces: [Bytes], to png: inout [UInt8]) {
        let length = pieces.reduce(0) { $0 + $1.count }
        var word = [UInt8](repeating: 0, count: 4)
        store(UInt32(length), into: &word, at: 0)
        png += word
        let typeStart = png.count
        type.withUTF8Buffer { png += $0 }
        for piece in pieces { png += piece }
        let crc = png.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[typeStart...])) }
        store(crc, into: &word, at: 0)
        png += word
    }

    /// Writes `value` big-endian at `offset`.
    private static func store(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }
}

extension PNGCoder: AnimatedImageDecoding {
    /// A frame decoder for an APNG (an `acTL` chunk before the image data)
    /// of more than one frame; `nil` for a plain PNG, an APNG of one frame
    /// (``decode(_:options:)`` decodes it), or a broken animation.
    ///
    /// The chunks are walked first, without inflating: canvas, play count,
    /// each frame's delay (`delay_num`/`delay_den` seconds, a 0 denominator
    /// meaning hundredths); ``ImageDecodingOptions/maxPixelCount`` and
    /// ``ImageDecodingOptions/maxAnimationPixelCount`` are checked before any
    /// pixel buffer. Frames come full-canvas, RGBA8, straight alpha.
    ///
    /// A broken animation — sequence numbers out of order, a frame outside
    /// the canvas, a frame count other than `acTL`'s, a damaged animation
    /// chunk — is not an error here: the APNG specification then asks
    /// viewers for the default image, so this returns `nil` and
    /// ``decode(_:options:)`` gives that image. Damaged data in one frame of
    /// a sound animation fails only that frame (earlier frames stay valid).
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over the limits;
    ///   ``ImageError/undecodable(_:_:)`` for data that is not PNG.
    package func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)? {
        guard canDecode(data) else { throw ImageError.undecodable(.png, "not a PNG") }
        guard let container = Self.animation(in: data), APNGAnimationDecoder.durations(of: container).count > 1 else { return nil }
        return try APNGAnimationDecoder(data, container: container, options: options)
    }

    /// The animation of an APNG, or `nil` for a plain PNG or an animation
    /// the specification says to replace by its default image.
    static func animation(in data: Data) -> APNGContainer? {
        data.withUnsafeBytes { png in
            guard APNGContainer.isAnimated(png) else { return nil }
            return try? APNGContainer(png)
        }
    }

    /// The animation's only frame, resampled and oriented as the options
    /// ask, when `data` is an APNG of one frame behind a hidden default
    /// image — an animation ``makeAnimatedFrameDecoder(_:options:)`` does
    /// not play, whose picture is that frame, not the default image that
    /// only decoders without APNG support are meant to show. `nil`
    /// otherwise, and when the frame cannot be decoded (the default image
    /// is then the fallback, as for any broken animation).
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` over the limits.
    static func onlyFrameBehindHiddenDefaultImage(_ data: Data, options: ImageDecodingOptions) throws -> Image? {
        guard let container = animation(in: data), !container.defaultImageIsFrame,
              APNGAnimationDecoder.durations(of: container).count == 1, container.frames.count == 1
        else { return nil }
        let decoder = try APNGAnimationDecoder(data, container: container, options: options)
        guard let frame = try? decoder.decodeNextFrame() else { return nil }
        return finish(frame, target: options.targetSize(forStored: frame.size, orientation: .up), options: options)
    }
}
