import CDeflate
import CSpng
import Foundation
import Testing
@testable import AsyncWebImage

/// ISA-L's streamed inflate of a thumbnail's image data on its own: a good
/// stream in any IDAT split gives libspng's pixels, and every kind of bad
/// stream is caught by the inflater itself (then the coder falls back to
/// libspng, whose typed error or pixels the caller gets).
@Suite("PNGImageDataInflater", .timeLimit(.minutes(2)))
struct PNGImageDataInflaterTests {
    enum Stream: String, CaseIterable, Sendable {
        /// The original stream in one IDAT chunk, or with its Adler-32 split over the last two IDAT chunks.
        case oneChunk, trailerAcrossChunks
        /// One IDAT chunk of one byte after another: ISA-L never sees more than a byte.
        case byteChunks
        /// Cut 100 bytes before its end, or only inside the trailer.
        case cut, cutTrailer
        /// A byte of deflate data flipped, or of the Adler-32.
        case damaged, wrongAdler
        /// Recompressed from one byte less, or one row more, than the image.
        case short, long
    }

    // Bytes, not `Data`: a global `Data` keeps its storage behind a pointer
    // with enum tag bits, which LeakSanitizer cannot follow, so the ASan run
    // reported the cached image as leaked.
    static let imageBytes: [UInt8] = {
        // Inflated data just over 4 MiB, so a thumbnail streams; every filter.
        let (width, height) = (1031, PNGInflatedImage.maximumWholeInflateBytesForReduction / (1031 * 4) + 7)
        return (try? PNGInflatedImageTests.encodeNoise(
            width: width, height: height, colorType: 6, depth: 8, interlaced: false, filter: SPNG_FILTER_CHOICE_ALL
        )).map { [UInt8]($0) } ?? []
    }()

    /// The zlib stream of `png` (its IDAT payloads joined), and the file's
    /// bytes before the first IDAT and from the chunk after the last one on.
    static func split(_ png: [UInt8]) -> (head: [UInt8], stream: [UInt8], tail: [UInt8])? {
        guard var chunk = PNGInflatedImageTests.chunkOffset(png, "IDAT") else { return nil }
        let head = Array(png[..<chunk])
        var stream: [UInt8] = []
        // Each step moves past one chunk: bounded by the file.
        while chunk + 8 <= png.count, String(decoding: png[(chunk + 4)..<(chunk + 8)], as: UTF8.self) == "IDAT" {
            let length = Int(png[chunk]) << 24 | Int(png[chunk + 1]) << 16 | Int(png[chunk + 2]) << 8 | Int(png[chunk + 3])
            stream += png[(chunk + 8)..<(chunk + 8 + length)]
            chunk += 12 + length
        }
        return (head, stream, Array(png[chunk...]))
    }

    /// A PNG of `head`, `stream` in IDAT chunks of the given sizes (the rest
    /// in a last one), each with its right CRC, then `tail`.
    static func assemble(head: [UInt8], stream: [UInt8], pieces: [Int], tail: [UInt8]) -> Data {
        var png = head
        var start = 0
        for size in pieces + [stream.count] where start < stream.count {
            let end = min(stream.count, start + size)
            var chunk = Array("IDAT".utf8) + stream[start..<end]
            let crc = chunk.withUnsafeBytes { CRC32.checksum($0) }
            let length = end - start
            png += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) }
            chunk += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
            png += chunk
            start = end
        }
        return Data(png + tail)
    }

    /// `raw` compressed into a zlib stream by libdeflate.
    static func compress(_ raw: [UInt8]) throws -> [UInt8] {
        let compressor = try #require(libdeflate_alloc_compressor(6))
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, raw.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = raw.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { libdeflate_zlib_compress(compressor, raw.baseAddress, raw.count, $0.baseAddress, bound) }
        }
        try #require(written > 0)
        return Array(out[..<written])
    }

    static func make(_ kind: Stream, from png: Data) throws -> Data {
        let (head, good, tail) = try #require(split([UInt8](png)))
        var stream = good
        var pieces = [65_536]
        switch kind {
        case .oneChunk: pieces = [good.count]
        case .trailerAcrossChunks: pieces = [good.count - 2]
        case .byteChunks: pieces = [Int](repeating: 1, count: 3000) + [good.count - 3002]
        case .cut: stream.removeLast(100)
        case .cutTrailer: stream.removeLast(2)
        case .damaged: stream[stream.count / 2] ^= 0x55
        case .wrongAdler: stream[stream.count - 1] ^= 0x01
        case .short, .long:
            let reference = try #require(PNGInflatedImageTests.spngReference(png))
            let rowBytes = 1 + reference.plan.width * 4
            var raw = [UInt8](repeating: 0, count: rowBytes * reference.plan.height)
            let decompressor = try #require(libdeflate_alloc_decompressor())
            defer { libdeflate_free_decompressor(decompressor) }
            let result = good.withUnsafeBytes { compressed in
                raw.withUnsafeMutableBytes {
                    libdeflate_zlib_decompress(decompressor, compressed.baseAddress, compressed.count, $0.baseAddress, $0.count, nil)
                }
            }
            try #require(result == LIBDEFLATE_SUCCESS)
            if kind == .short { raw.removeLast() } else { raw += raw[..<rowBytes] }
            stream = try compress(raw)
        }
        return assemble(head: head, stream: stream, pieces: pieces, tail: tail)
    }

    @Test("a streamed thumbnail's stream: good ones in any split give libspng's pixels, bad ones are refused by the inflater", arguments: Stream.allCases)
    func stream(kind: Stream) throws {
        // Given the large noise image with its zlib stream rewritten
        let original = Data(Self.imageBytes)
        try #require(!original.isEmpty)
        let data = try Self.make(kind, from: original)
        let reference = PNGInflatedImageTests.spngReference(data)
        // When the streamed route visits every row
        let (rows, shrunk) = try data.withUnsafeBytes { buffer -> (Bool, Result<Image, any Error>) in
            let context = try SpngContext(decoding: buffer)
            let plan = try PNGDecodePlan(ihdr: try context.header(), hasTransparencyChunk: try context.hasTransparencyChunk())
            var streamed = try #require(PNGInflatedImage(png: buffer, context: context, plan: plan, maximumInflatedBytes: .max, reduced: true))
            #expect(streamed.isStreaming)
            let rows = streamed.forEachRow { _, _, _ in true }
            return (rows, Result { try PNGCoder.decodeShrinking(context, png: buffer, plan: plan, factor: 4) })
        }
        switch kind {
        case .oneChunk, .trailerAcrossChunks, .byteChunks:
            // Then a good stream is read whole, and the thumbnail is libspng's decode box-averaged
            #expect(rows)
            let expected = PNGInflatedImageTests.boxAverage(try #require(reference), factor: 4)
            let image = try shrunk.get()
            #expect(image.size == expected.size && image.pixels == expected.pixels)
        default:
            // Then the inflater refuses a bad one, and the coder gives what libspng gives: its pixels or a typed error
            #expect(!rows)
            if let reference {
                let image = try shrunk.get()
                let expected = PNGInflatedImageTests.boxAverage(reference, factor: 4)
                #expect(image.size == expected.size && image.pixels == expected.pixels)
            } else {
                #expect(throws: ImageError.self) { try shrunk.get() }
            }
        }
    }
}
