import Foundation
import Testing
@testable import AsyncWebImage

@Suite("JPEGProgressiveDecoder", .timeLimit(.minutes(2)))
struct JPEGProgressiveDecoderTests {
    let coder = JPEGCoder()

    /// Feeds `data` in `chunk`-byte steps and collects the previews.
    static func feed(_ data: Data, chunk: Int, options: ImageDecodingOptions = .init()) throws -> [(bytes: Int, image: Image)] {
        var decoder = JPEGProgressiveDecoder(options: options)
        var previews: [(Int, Image)] = []
        for end in stride(from: chunk, through: data.count + chunk - 1, by: chunk) {
            let received = min(end, data.count)
            if let image = try decoder.preview(for: data.prefix(received)) { previews.append((received, image)) }
        }
        return previews
    }

    @Test("a progressive JPEG fed in chunks gives several full-frame previews")
    func progressiveChunks() throws {
        // Given a 640×480 progressive JPEG of 10 scans, arriving 1 KiB at a time
        let data = try JPEGFixtures.data("large-progressive.jpg")
        let final = try coder.decode(data, options: .init())
        let previews = try Self.feed(data, chunk: 1024)
        // Then there are several previews, fewer than the scans, none at the end
        #expect(previews.count >= 2)
        #expect(previews.count <= 10)
        #expect(previews.allSatisfy { $0.bytes < data.count })
        // And each is a full-size preview image
        for (bytes, preview) in previews {
            #expect(preview.isPreview)
            #expect(preview.size == final.size)
            #expect(preview.format == .jpeg)
            // covering the whole frame: its bottom quarter is close to the
            // final image's, not the grey libjpeg paints where data is missing
            let bottom = 360..<480
            let previewError = try #require(JPEGFixtures.meanDifference(preview, final, rows: bottom))
            let grey = try Image(width: 640, height: 480, pixelFormat: .rgb8, pixels: [UInt8](repeating: 128, count: 640 * 480 * 3))
            let greyError = try #require(JPEGFixtures.meanDifference(grey, final, rows: bottom))
            #expect(previewError < greyError / 3, "preview at \(bytes) bytes: \(previewError) vs grey \(greyError)")
        }
        // And later previews are closer to the final image
        let first = try #require(JPEGFixtures.meanDifference(previews[0].image, final, rows: 0..<480))
        let last = try #require(JPEGFixtures.meanDifference(previews[previews.count - 1].image, final, rows: 0..<480))
        #expect(last < first)
    }

    @Test("a truncated progressive JPEG previews the whole frame, while a full decode refuses it")
    func truncatedProgressive() throws {
        let data = try JPEGFixtures.data("large-progressive.jpg")
        let final = try coder.decode(data, options: .init())
        for fraction in [0.3, 0.6, 0.9] {
            // Given the first part of the file, all at once
            let cut = data.prefix(Int(Double(data.count) * fraction))
            var decoder = coder.makeProgressiveDecoder(options: .init())
            // When a preview is asked for
            let preview = try #require(try decoder?.preview(for: cut))
            // Then it is a full-frame preview, and asking again with nothing new gives nothing
            #expect(preview.isPreview && preview.size == final.size)
            let bottomError = try #require(JPEGFixtures.meanDifference(preview, final, rows: 400..<480))
            #expect(bottomError < 12, "\(fraction): \(bottomError)")
            #expect(try decoder?.preview(for: cut) == nil)
            // While the full decode of the same bytes is an error
            #expect(throws: ImageError.self) { try coder.decode(cut, options: .init()) }
        }
    }

    @Test("a baseline JPEG gets previews as rows arrive, by the growth rule")
    func baselineChunks() throws {
        // Given a 29.5 KB baseline JPEG arriving 2 KiB at a time
        let data = try JPEGFixtures.data("large.jpg")
        let final = try coder.decode(data, options: .init())
        let previews = try Self.feed(data, chunk: 2048)
        // Then previews come at ≥ 8 KiB of entropy data, then each time it
        // doubles: at 8 and 16 KiB (32 KiB is past the end)
        #expect(previews.count == 2, "\(previews.map(\.bytes))")
        #expect(previews.first.map { $0.bytes >= 8 * 1024 && $0.bytes < 8 * 1024 + 2048 + 1024 } == true)
        for (bytes, preview) in previews {
            #expect(preview.isPreview && preview.size == final.size)
            // The rows that have arrived are exactly the final ones
            let top = try #require(JPEGFixtures.meanDifference(preview, final, rows: 0..<32))
            #expect(top == 0, "preview at \(bytes) bytes")
        }
        // And each later preview has more final rows than the previous one
        let matching = previews.map { preview in
            (0..<480).prefix { row in JPEGFixtures.meanDifference(preview.image, final, rows: row..<(row + 1)) == 0 }.count
        }
        #expect(matching == matching.sorted() && Set(matching).count == matching.count, "\(matching)")
    }

    @Test("previews honour the thumbnail size and orientation options")
    func thumbnailPreviews() throws {
        let data = try JPEGFixtures.data("large-progressive.jpg")
        let previews = try Self.feed(data, chunk: 4096, options: .init(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.image.size == PixelSize(width: 64, height: 48) && $0.image.isPreview })
    }

    @Test("bad data is reported as soon as it can be seen")
    func badData() throws {
        // Not JPEG: the first two bytes tell
        var html = JPEGProgressiveDecoder()
        #expect(throws: ImageError.undecodable(.jpeg, "not JPEG data (no SOI marker)")) {
            try html.preview(for: Data("<html>".utf8))
        }
        // One byte: nothing to say yet
        var oneByte = JPEGProgressiveDecoder()
        #expect(try oneByte.preview(for: Data([0xFF])) == nil)
        // A huge frame: refused as soon as the SOF segment has arrived
        let huge = try JPEGFixtures.withDeclaredSize(try JPEGFixtures.data("large-progressive.jpg"), width: 64_250, height: 64_250)
        var decoder = JPEGProgressiveDecoder()
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 64_250 * 64_250)) {
            for end in stride(from: 256, through: huge.count, by: 256) { _ = try decoder.preview(for: huge.prefix(end)) }
        }
        // Random bytes after a JPEG signature: typed errors or nothing, never a crash
        var generator = SeededGenerator(seed: 0x5052_4F47) // seeded: a failure reproduces
        for _ in 0..<50 {
            let noise = Data([0xFF, 0xD8, 0xFF] + (0..<2000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            var random = JPEGProgressiveDecoder()
            do {
                for end in stride(from: 500, through: noise.count, by: 500) { _ = try random.preview(for: noise.prefix(end)) }
            } catch is ImageError {
                // expected for most inputs
            }
        }
    }

    @Test("complete data gives no preview; shorter data restarts the decoder")
    func completeAndRestart() throws {
        let data = try JPEGFixtures.data("large-progressive.jpg")
        var decoder = JPEGProgressiveDecoder()
        // The whole file at once: the final decode follows, no preview
        #expect(try decoder.preview(for: data) == nil)
        // A restarted download (less data than before) starts over
        let preview = try decoder.preview(for: data.prefix(data.count / 2))
        #expect(preview?.isPreview == true)
    }

    @Test("at most maximumPreviews previews per download")
    func previewCap() throws {
        // Given a 43-scan progressive file (a lossless re-encoding of baseline-420.jpg)
        let data = try JPEGFixtures.data("many-scans.jpg")
        #expect(try coder.decode(data, options: .init()).maximumChannelDifference(from: try JPEGFixtures.reference("baseline-420.ppm")) == 0)
        // When it arrives 16 bytes at a time, so that most scans complete in their own step
        let previews = try Self.feed(data, chunk: 16)
        // Then previews stop at the cap
        #expect(previews.count == JPEGProgressiveDecoder.maximumPreviews)
        // And a 10-scan file fed in 64-byte steps gets one per scan at most
        let ten = try Self.feed(try JPEGFixtures.data("large-progressive.jpg"), chunk: 64)
        #expect(ten.count >= 8 && ten.count <= 10, "\(ten.count)")
    }
}
