import Foundation
import Testing
@testable import AsyncWebImage

/// The APNG fixtures of `Fixtures/make-animation-fixtures.sh` (apngasm's
/// files and one written field by field with every dispose_op and blend_op)
/// against the full frames apngdis makes of them; delays against apngdis's
/// `delay=` files.
@Suite("APNG: decoding every frame", .timeLimit(.minutes(1)))
struct APNGAnimationDecoderTests {
    let coder = PNGCoder()

    @Test("every frame equals apngdis's, dispose and blend ops included; delays and plays from the chunks", arguments: [
        ("animated", 0, 3), ("ops", 0, 4), ("hidden-default", 1, 0), ("palette", 0, 1),
    ])
    func framesMatchApngdis(name: String, firstReference: Int, plays: Int) throws {
        let data = try fixture("animation", name + ".png")
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(data, options: .init()))
        let delays = try apngdisDelays(name)
        // apngdis lists a default image that is not a frame as its frame 0
        #expect(decoder.info.frameDurations == Array(delays[firstReference...]))
        #expect(decoder.info.loopCount == plays)
        #expect(decoder.info.canvasWidth == (name == "ops" ? 30 : 40))
        let frames = try decodeAll(decoder)
        #expect(frames.count == delays.count - firstReference)
        for (index, frame) in frames.enumerated() {
            #expect(frame.pixelFormat == .rgba8 && frame.format == .png)
            let reference = try PAMReference("animation", "\(name)-apng-\(index + firstReference)")
            #expect(reference.maximumDifference(from: frame) == 0, "frame \(index)")
        }
        try decoder.rewind()
        #expect(try decoder.decodeNextFrame()?.hasSamePixels(as: frames[0]) == true)
    }

    @Test("a still decode gives the default image, whether a frame or not; a plain PNG has no frame decoder")
    func defaultImage() throws {
        let hidden = try coder.decode(try fixture("animation", "hidden-default.png"), options: .init())
        #expect(try PAMReference("animation", "hidden-default-apng-0").maximumDifference(from: hidden) == 0)
        let animated = try coder.decode(try fixture("animation", "animated.png"), options: .init())
        #expect(try PAMReference("animation", "animated-apng-0").maximumDifference(from: animated) == 0)
        #expect(try coder.makeAnimatedFrameDecoder(try fixture("png", "rgba8.png"), options: .init()) == nil)
    }

    @Test("sequence numbers out of order: the container's typed error, no frame decoder, the default image from decode")
    func sequenceOutOfOrder() throws {
        // Given ops.png with the second fcTL's sequence number changed (CRC fixed)
        var bytes = [UInt8](try fixture("animation", "ops.png"))
        let chunks = fcTLOffsets(bytes)
        try #require(chunks.count == 5)
        bytes[chunks[1] + 8 + 3] = 9
        resealChunk(&bytes, at: chunks[1])

        // Then the container refuses it, so there is no animation (the APNG
        // specification's fallback) and the still decode shows the default image
        #expect(throws: ImageError.undecodable(.png, "APNG: sequence numbers out of order at an fcTL")) {
            try Data(bytes).withUnsafeBytes { try APNGContainer($0) }
        }
        #expect(try coder.makeAnimatedFrameDecoder(Data(bytes), options: .init()) == nil)
        let still = try coder.decode(Data(bytes), options: .init())
        #expect(try PAMReference("animation", "ops-apng-0").maximumDifference(from: still) == 0)
    }

    @Test("a frame outside the canvas and a frame count other than acTL's: the container's typed errors, no frame decoder")
    func brokenControl() throws {
        var outside = [UInt8](try fixture("animation", "ops.png"))
        let chunk = fcTLOffsets(outside)[2]
        outside[chunk + 8 + 12 + 3] = 25  // x = 25, + 8 wide > 30
        resealChunk(&outside, at: chunk)
        #expect(throws: ImageError.undecodable(.png, "APNG: frame 2 (8×8 at 25,8) is outside the canvas")) {
            try Data(outside).withUnsafeBytes { try APNGContainer($0) }
        }
        #expect(try coder.makeAnimatedFrameDecoder(Data(outside), options: .init()) == nil)

        var count = [UInt8](try fixture("animation", "ops.png"))
        let acTL = try #require(chunkOffset("acTL", in: count))
        count[acTL + 8 + 3] = 7
        resealChunk(&count, at: acTL)
        #expect(throws: ImageError.undecodable(.png, "APNG: acTL declares 7 frames, the file has 5")) {
            try Data(count).withUnsafeBytes { try APNGContainer($0) }
        }
        #expect(try coder.makeAnimatedFrameDecoder(Data(count), options: .init()) == nil)
        #expect(try ImageCoderRegistry.builtIn.decode(Data(count)).animation == nil)
    }

    @Test("damaged data in frame 3: frames 0–2 decode, frame 3 throws a typed error")
    func damagedFrame() throws {
        // Given ops.png whose fourth frame's zlib data is overwritten (CRC resealed, so only the data is bad)
        var bytes = [UInt8](try fixture("animation", "ops.png"))
        var fdATs: [Int] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("fdAT".utf8) { fdATs.append(offset) }
            offset += 12 + length
        }
        let third = fdATs[2]
        for index in (third + 12)..<(third + 18) { bytes[index] = 0xFF }
        resealChunk(&bytes, at: third)

        let decoder = try #require(try coder.makeAnimatedFrameDecoder(Data(bytes), options: .init()))
        for index in 0..<3 {
            let frame = try #require(try decoder.decodeNextFrame())
            #expect(try PAMReference("animation", "ops-apng-\(index)").maximumDifference(from: frame) == 0)
        }
        #expect(throws: ImageError.self) { try decoder.decodeNextFrame() }
    }

    @Test("cut inside the last frame's data: the frames before it play, it throws")
    func truncated() throws {
        let bytes = [UInt8](try fixture("animation", "ops.png"))
        let lastFcTL = fcTLOffsets(bytes)[4]
        let cut = Data(bytes[..<(lastFcTL + 38 + 20)])
        let decoder = try #require(try coder.makeAnimatedFrameDecoder(cut, options: .init()))
        #expect(decoder.info.frameCount == 5)
        for index in 0..<4 {
            let frame = try #require(try decoder.decodeNextFrame())
            #expect(try PAMReference("animation", "ops-apng-\(index)").maximumDifference(from: frame) == 0)
        }
        #expect(throws: ImageError.undecodable(.png, "truncated: frame 4 is cut off")) { try decoder.decodeNextFrame() }
    }

    @Test("frames × canvas over maxAnimationPixelCount fails before decoding")
    func limit() throws {
        var options = ImageDecodingOptions()
        options.maxAnimationPixelCount = 5 * 30 * 20 - 1
        #expect(throws: ImageError.tooLarge(.animationPixels, limit: 2999, actual: 3000)) {
            try coder.makeAnimatedFrameDecoder(try fixture("animation", "ops.png"), options: options)
        }
    }

    /// apngdis's `delay=num/den` lines for `name`, as durations.
    private func apngdisDelays(_ name: String) throws -> [Duration] {
        let text = String(decoding: try fixture("animation", "\(name)-apng-delays.txt"), as: UTF8.self)
        return try text.split(separator: "\n").map { line in
            let parts = line.dropFirst("delay=".count).split(separator: "/")
            let numerator = try #require(Int64(parts[0])), denominator = try #require(Int64(parts[1]))
            return .nanoseconds(numerator * 1_000_000_000 / denominator)
        }
    }
}

/// Offsets of the `fcTL` chunks (their length field) in a PNG.
func fcTLOffsets(_ bytes: [UInt8]) -> [Int] {
    var result: [Int] = []
    var offset = 8
    while offset + 8 <= bytes.count {
        let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        if bytes[(offset + 4)..<(offset + 8)].elementsEqual("fcTL".utf8) { result.append(offset) }
        offset += 12 + length
    }
    return result
}

/// The offset of the first chunk named `type`.
func chunkOffset(_ type: String, in bytes: [UInt8]) -> Int? {
    var offset = 8
    while offset + 8 <= bytes.count {
        let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        if bytes[(offset + 4)..<(offset + 8)].elementsEqual(type.utf8) { return offset }
        offset += 12 + length
    }
    return nil
}

/// Rewrites the CRC of the chunk at `offset` after its bytes were changed.
func resealChunk(_ bytes: inout [UInt8], at offset: Int) {
    let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + length)])) }
    for index in 0..<4 { bytes[offset + 8 + length + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
}
