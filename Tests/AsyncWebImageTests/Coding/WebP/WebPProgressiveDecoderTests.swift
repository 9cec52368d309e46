import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP

@Suite("WebPProgressiveDecoder: previews from libwebp's incremental decoder", .timeLimit(.minutes(1)))
struct WebPProgressiveDecoderTests {
    /// Feeds `data` in growing prefixes of `step` bytes; returns the previews.
    func previews(_ data: Data, step: Int, options: ImageDecodingOptions = .init()) throws -> [Image] {
        var decoder = WebPProgressiveDecoder(options: options)
        var previews: [Image] = []
        for end in stride(from: step, through: data.count + step - 1, by: step) {
            if let preview = try decoder.preview(for: data.prefix(min(end, data.count))) { previews.append(preview) }
        }
        return previews
    }

    @Test("growing prefixes give previews with more rows each time; the last is the full decode")
    func previewsGrow() throws {
        // Given a 256×192 lossy WebP arriving 100 bytes at a time
        let data = try fixture("webp", "large-lossy.webp")
        let full = try WebPCoder().decode(data, options: .init())

        // When fed to the progressive decoder
        let previews = try previews(data, step: 100)

        // Then there are several previews, each marked, of the final size, the last equal to the full decode
        #expect(previews.count >= 3)
        #expect(previews.allSatisfy { $0.isPreview && $0.size == full.size && $0.pixelFormat == .rgb8 })
        #expect(try #require(previews.last).hasSamePixels(as: full))
        // Rows decoded so far are the final rows; later rows are still black (zero)
        let first = previews[0]
        let lastRowOfFirst = (0..<first.height).last { y in (0..<first.width).contains { first.pixel(x: $0, y: y) != [0, 0, 0] } } ?? -1
        #expect(lastRowOfFirst < full.height - 1)
        for y in 0...max(0, lastRowOfFirst - 16) {
            #expect(first.pixel(x: 5, y: y) == full.pixel(x: 5, y: y))
        }
    }

    @Test("previews of a thumbnail have the thumbnail's size; the last equals the thumbnail decode")
    func thumbnailPreviews() throws {
        let data = try fixture("webp", "large-lossy.webp")
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        let previews = try previews(data, step: 200, options: options)
        let thumbnail = try WebPCoder().decode(data, options: options)
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.size == PixelSize(width: 64, height: 48) })
        #expect(try #require(previews.last).hasSamePixels(as: thumbnail))
    }

    @Test("a header still arriving gives nil; a bad one, an animation or one over the limit throws")
    func headerStates() throws {
        let data = try fixture("webp", "lossy.webp")
        var decoder = WebPProgressiveDecoder()
        #expect(try decoder.preview(for: Data()) == nil)
        #expect(try decoder.preview(for: data.prefix(12)) == nil)

        var garbage = data
        garbage.replaceSubrange(12..<16, with: Array("XXXX".utf8))
        var bad = WebPProgressiveDecoder()
        #expect(throws: ImageError.self) { try bad.preview(for: garbage) }

        var animated = WebPProgressiveDecoder()
        #expect(throws: ImageError.undecodable(.webp, "animated WebP: only still images are decoded")) {
            try animated.preview(for: try fixture("webp", "animated.webp"))
        }
        var limited = WebPProgressiveDecoder(options: .init(maxPixelCount: 1000))
        #expect(throws: ImageError.tooLarge(.pixels, limit: 1000, actual: 61 * 47)) { try limited.preview(for: data) }
    }
}
