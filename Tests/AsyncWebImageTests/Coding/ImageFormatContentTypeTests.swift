import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageWebP

/// Format detection, media types and file extensions against real files
/// (`Fixtures/formats`, made by `make-webp-gif-fixtures.sh` with ImageMagick,
/// cwebp, avifenc and heif-enc, their media types as libmagic's `file`
/// reports them), and the pipeline choosing the decoder by the bytes, not
/// the `Content-Type`.
@Suite("ImageFormat: detection, media types and the pipeline", .timeLimit(.minutes(1)))
struct ImageFormatContentTypeTests {
    @Test("each real file is detected as its format, whose media type is file's and whose extension is the file's", arguments: [
        ("jpg", ImageFormat.jpeg), ("png", .png), ("gif", .gif), ("webp", .webp),
        ("heic", .heic), ("avif", .avif), ("tiff", .tiff), ("bmp", .bmp),
    ])
    func detection(fileExtension: String, format: ImageFormat) throws {
        // Given a file written by another tool, and libmagic's media type for it
        let name = "sample.\(fileExtension)"
        let data = try fixture("formats", name)
        let listing = String(decoding: try fixture("formats", "mime-types.txt"), as: UTF8.self)
        let line = try #require(listing.split(separator: "\n").first { $0.hasPrefix(name + " ") })
        let mimeType = String(line.dropFirst(name.count + 1))

        // Then detection names the format, and the format's type and extension agree with them
        #expect(ImageFormat.detect(data) == format)
        #expect(format.mimeType == mimeType)
        #expect(format.fileExtension == fileExtension)
    }

    @Test("a WebP served as image/jpeg and a GIF served as image/png are decoded by their bytes")
    func bytesWinOverContentType() async throws {
        // Given files served under a Content-Type that lies
        let harness = try PipelineHarness()
        let webp = try fixture("webp", "lossy.webp")
        let gif = try fixture("gif", "transparent.gif")
        let webpURL = harness.serve("/photo.jpg", webp, contentType: "image/jpeg")
        let gifURL = harness.serve("/icon.png", gif, contentType: "image/png")

        // When loaded
        let webpImage = try await harness.loader.response(webpURL).image
        let gifImage = try await harness.loader.response(gifURL).image

        // Then each is decoded as what its bytes are, with the reference pixels
        #expect(webpImage.format == .webp)
        #expect(try PAMReference("webp", "lossy").maximumDifference(from: webpImage) == 0)
        #expect(gifImage.format == .gif)
        #expect(try PAMReference("gif", "transparent").maximumDifference(from: gifImage) == 0)
        #expect(harness.requests("/photo.jpg") == 1)
    }

    @Test("a trickled WebP served as image/jpeg gives WebP previews through the loader, then the full decode")
    func progressiveByBytes() async throws {
        // Given a 256×192 WebP arriving 150 bytes at a time, labelled JPEG
        let harness = try PipelineHarness(progressiveCoders: true)
        let webp = try fixture("webp", "large-lossy.webp")
        harness.server.route("/slow.jpg", LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: webp,
            trickle: .init(bytesPerPiece: 150, interval: .milliseconds(30))))
        let full = try WebPCoder().decode(webp, options: .init())

        // When loaded with .progressiveLoad
        var previews: [Image] = []
        var final: Image?
        for try await image in harness.loader.images(harness.server.url("/slow.jpg"), options: .progressiveLoad) {
            if image.isPreview { previews.append(image) } else { final = image }
        }

        // Then WebP previews came first, and the final image is the full decode
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.format == .webp && $0.size == full.size })
        #expect(try #require(final).hasSamePixels(as: full))
    }
}
