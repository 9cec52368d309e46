import Foundation

/// The animation an APNG's chunks describe: the `acTL` control, each
/// frame's `fcTL` and where its image data (`IDAT` or `fdAT`) lies, and
/// the chunks every frame shares (`PLTE`, `tRNS`).
///
/// Read by walking the chunks once, without inflating anything. The walk
/// checks what the APNG specification makes an error: sequence numbers
/// that do not run 0, 1, 2, … over `fcTL` and `fdAT`, frames outside the
/// canvas or of zero size, a first frame that is not the whole canvas when
/// it is the default image, and a frame count that disagrees with `acTL`.
/// A CRC mismatch in a chunk the animation reads is an error too.
struct APNGContainer {
    /// One frame's control and image data.
    struct Frame {
        var width: Int
        var height: Int
        var x: Int
        var y: Int
        var delayNumerator: Int
        var delayDenominator: Int
        /// 0 none, 1 background, 2 previous.
        var disposeOp: UInt8
        /// 0 source, 1 over.
        var blendOp: UInt8
        /// Byte ranges of the zlib stream's pieces (after an `fdAT`'s sequence number).
        var dataRanges: [Range<Int>] = []

        /// The stored delay; a zero denominator means hundredths (APNG spec).
        var duration: Duration {
            let denominator = Int64(delayDenominator == 0 ? 100 : delayDenominator)
            return .nanoseconds(Int64(delayNumerator) * 1_000_000_000 / denominator)
        }
    }

    /// The `IHDR` payload (13 bytes): size, depth, colour type, interlace.
    var header: [UInt8]
    var canvasWidth: Int
    var canvasHeight: Int
    /// `acTL`'s `num_frames`.
    var declaredFrameCount: Int
    /// `acTL`'s `num_plays` (0: forever).
    var playCount: Int
    /// The `PLTE` and `tRNS` chunks, whole (length, type, data, CRC), that
    /// each frame's image needs.
    var sharedChunks: [Range<Int>] = []
    var frames: [Frame] = []
    /// Whether the data ended before `IEND`: the frames whose data is all
    /// there play, the first one that is not fails.
    var isTruncated = false
    /// Whether the `IDAT` image is the animation's first frame (an `fcTL`
    /// precedes it). When it is not, the default image is hidden: viewers
    /// that play APNG never show it, and the still image is the first
    /// `fdAT` frame.
    var defaultImageIsFrame = false

    /// Whether `png` has an `acTL` chunk before its image data (the only
    /// place the specification lets it be). Reads chunk headers only.
    static func isAnimated(_ png: UnsafeRawBufferPointer) -> Bool {
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(readUInt32(png, offset))
            let type = readUInt32(png, offset + 4)
            if type == fourCC("acTL") { return true }
            if type == fourCC("IDAT") || length > Int(Int32.max) { return false }
            offset += 12 + length
        }
        return false
    }

    /// Walks the chunks of `png` (signature already checked).
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with a message starting
    ///   "APNG:" for any error the type description lists.
    init(_ png: UnsafeRawBufferPointer) throws(ImageError) {
        guard png.count >= 8 + 25 else { throw .undecodable(.png, "truncated: the data ends inside the headers") }
        var offset = 8
        var header: [UInt8]?
        var control: (frames: Int, plays: Int)?
        var sequence = 0
        var seenImageData = false
        var defaultIsFrame = false
        var current: Frame?
        var ended = false
        sharedChunks = []
        frames = []
        canvasWidth = 0
        canvasHeight = 0
        declaredFrameCount = 0
        playCount = 0
        self.header = []

        func fail(_ message: String) -> ImageError { .undecodable(.png, "APNG: " + message) }

        while offset + 8 <= png.count {
            let length = Int(Self.readUInt32(png, offset))
            let type = Self.readUInt32(png, offset + 4)
            guard length <= Int(Int32.max) else { throw fail("a chunk length over 2³¹") }
            let dataStart = offset + 8
            guard dataStart + length + 4 <= png.count else {
                // The file ends inside this chunk: what came before can play.
                break
            }
            let payload = UnsafeRawBufferPointer(rebasing: png[dataStart..<(dataStart + length)])
            let isAnimationChunk = type == Self.fourCC("acTL") || type == Self.fourCC("fcTL") || type == Self.fourCC("fdAT")
            // IDAT too: a frame's PNG is rebuilt with fresh CRCs, so a damaged
            // default-image chunk would otherwise pass unnoticed.
            if isAnimationChunk || type == Self.fourCC("IHDR") || type == Self.fourCC("IDAT") {
                let stored = Self.readUInt32(png, dataStart + length)
                let computed = CRC32.checksum(UnsafeRawBufferPointer(rebasing: png[(offset + 4)..<(offset + 8 + length)]))
                guard stored == computed else { throw fail("CRC mismatch in a \(Self.name(type)) chunk") }
            }
            switch type {
            case Self.fourCC("IHDR"):
                guard length == 13, header == nil else { throw fail("a bad IHDR") }
                header = Array(payload)
                canvasWidth = Int(Self.readUInt32(payload, 0))
                canvasHeight = Int(Self.readUInt32(payload, 4))
            case Self.fourCC("acTL"):
                guard length == 8, control == nil, !seenImageData else { throw fail("a misplaced or repeated acTL") }
                control = (Int(Self.readUInt32(payload, 0)), Int(Self.readUInt32(payload, 4)))
            case Self.fourCC("PLTE"), Self.fourCC("tRNS"):
                // The first of each, before the image data, as PNG allows: every
                // frame's PNG carries them, so repeats would be copied per frame.
                let known = sharedChunks.contains { Self.readUInt32(png, $0.lowerBound + 4) == type }
                if !seenImageData && !known { sharedChunks.append(offset..<(dataStart + length + 4)) }
            case Self.fourCC("fcTL"):
                guard length == 26 else { throw fail("an fcTL of \(length) bytes") }
                guard Int(Self.readUInt32(payload, 0)) == sequence else { throw fail("sequence numbers out of order at an fcTL") }
                sequence += 1
                if let current { frames.append(current) }
                let frame = Frame(
                    width: Int(Self.readUInt32(payload, 4)), height: Int(Self.readUInt32(payload, 8)),
                    x: Int(Self.readUInt32(payload, 12)), y: Int(Self.readUInt32(payload, 16)),
                    delayNumerator: Int(payload[20]) << 8 | Int(payload[21]),
                    delayDenominator: Int(payload[22]) << 8 | Int(payload[23]),
                    disposeOp: payload[24], blendOp: payload[25]
                )
                guard frame.width > 0, frame.height > 0, frame.x + frame.width <= canvasWidth, frame.y + frame.height <= canvasHeight else {
                    throw fail("frame \(frames.count) (\(frame.width)×\(frame.height) at \(frame.x),\(frame.y)) is outside the canvas")
                }
                guard frame.disposeOp <= 2, frame.blendOp <= 1 else { throw fail("unknown dispose_op or blend_op") }
                if !seenImageData {
                    guard frame.x == 0, frame.y == 0, frame.width == canvasWidth, frame.height == canvasHeight else {
                        throw fail("the default image's frame is not the whole canvas")
                    }
                    defaultIsFrame = true
                }
                current = frame
            case Self.fourCC("IDAT"):
                seenImageData = true
                if defaultIsFrame { current?.dataRanges.append(dataStart..<(dataStart + length)) }
            case Self.fourCC("fdAT"):
                guard length >= 4 else { throw fail("an fdAT without a sequence number") }
                guard Int(Self.readUInt32(payload, 0)) == sequence else { throw fail("sequence numbers out of order at an fdAT") }
                sequence += 1
                guard current != nil, seenImageData else { throw fail("an fdAT before any fcTL or IDAT") }
                current?.dataRanges.append((dataStart + 4)..<(dataStart + length))
            case Self.fourCC("IEND"):
                ended = true
            default:
                break
            }
            if ended { break }
            offset = dataStart + length + 4
        }
        guard let header else { throw fail("no IHDR") }
        guard let control else { throw fail("no acTL") }
        self.header = header
        declaredFrameCount = control.frames
        playCount = control.plays
        guard canvasWidth > 0, canvasHeight > 0 else { throw fail("the header declares \(canvasWidth)×\(canvasHeight) pixels") }
        if let current { frames.append(current) }
        defaultImageIsFrame = defaultIsFrame
        isTruncated = !ended
        if ended {
            guard frames.count == declaredFrameCount else {
                throw fail("acTL declares \(declaredFrameCount) frames, the file has \(frames.count)")
            }
        } else {
            guard frames.count <= declaredFrameCount else {
                throw fail("acTL declares \(declaredFrameCount) frames, the file has more")
            }
        }
    }

    /// The chunk type `code` as a 32-bit big-endian number.
    static func fourCC(_ code: StaticString) -> UInt32 {
        code.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// A chunk type's four letters, for messages.
    static func name(_ type: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: type >> (24 - 8 * $0)) }, as: UTF8.self)
    }

    /// The big-endian 32-bit number at `offset`.
    static func readUInt32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
