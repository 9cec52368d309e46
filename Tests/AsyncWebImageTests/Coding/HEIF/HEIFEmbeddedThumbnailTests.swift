import Foundation
import Testing
import CHeif
@testable import AsyncWebImage
@testable import AsyncWebImageHEIF

/// Thumbnails of HEIC files that carry an embedded thumbnail: the 64×48
/// fixtures with a 32×24 one (`Fixtures/make-avif-heif-fixtures.sh`), whose
/// references are libvips's decode of the thumbnail item.
@Suite("HEIFCoder: embedded thumbnails", .timeLimit(.minutes(2)))
struct HEIFEmbeddedThumbnailTests {
    let coder = HEIFCoder()

    private func thumbnailOptions(_ side: Int) -> ImageDecodingOptions {
        ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: side, height: side))
    }

    /// The full image decoded and resampled to `size`: what a thumbnail is
    /// when no embedded one is used.
    private func fullDecode(_ data: Data, resampledTo size: PixelSize) throws -> Image {
        ImageResampler.resample(try coder.decode(data, options: .init()), to: size)
    }

    @Test("a thumbnail the embedded one covers is that thumbnail (as libvips decodes it) resampled, not the full image", arguments: [
        ("embedded-thumbnail", PixelFormat.rgb8), ("embedded-thumbnail-rgba", .rgba8),
    ])
    func usesTheEmbeddedThumbnail(name: String, pixelFormat: PixelFormat) throws {
        // Given a 64×48 file with a 32×24 thumbnail, and libvips's decode of that thumbnail
        let data = try HEIFFixture.data("\(name).heic")
        let reference = try HEIFFixture.reference("\(name).thumbnail.ref.png")
        #expect(reference.size == PixelSize(width: 32, height: 24))
        // When thumbnails of at most 32 and 16 pixels are asked for
        let exact = try coder.decode(data, options: thumbnailOptions(32))
        let smaller = try coder.decode(data, options: thumbnailOptions(16))
        // Then the first is the embedded thumbnail itself, the second that thumbnail resampled
        #expect(exact.pixelFormat == pixelFormat)
        #expect(exact.hasSamePixels(as: reference), "max difference \(exact.maximumChannelDifference(from: reference) ?? -1)")
        #expect(smaller.size == PixelSize(width: 16, height: 12))
        #expect(smaller.hasSamePixels(as: ImageResampler.resample(reference, to: smaller.size)))
        // and neither is the full image resampled (coded separately, they differ)
        #expect(!exact.hasSamePixels(as: try fullDecode(data, resampledTo: exact.size)))
        #expect(!smaller.hasSamePixels(as: try fullDecode(data, resampledTo: smaller.size)))
        // A scale-down to the thumbnail's bytes takes it too.
        let scaled = try coder.decode(data, options: .init(scaleDownLargeImages: true, scaleDownLimitBytes: 32 * 24 * 4))
        #expect(scaled.hasSamePixels(as: reference))
    }

    @Test("larger than the embedded thumbnail, turned off, or a full decode: the primary image")
    func primaryImageOtherwise() throws {
        let data = try HEIFFixture.data("embedded-thumbnail.heic")
        // 48×36 is more than the 32×24 thumbnail has.
        let larger = try coder.decode(data, options: thumbnailOptions(48))
        #expect(larger.size == PixelSize(width: 48, height: 36))
        #expect(larger.hasSamePixels(as: try fullDecode(data, resampledTo: larger.size)))
        // Stretched to 16×30: more rows than the thumbnail's 24.
        var stretched = thumbnailOptions(16)
        stretched.thumbnailPixelSize = PixelSize(width: 16, height: 30)
        stretched.preserveAspectRatio = false
        let tall = try coder.decode(data, options: stretched)
        #expect(tall.size == PixelSize(width: 16, height: 30))
        #expect(tall.hasSamePixels(as: try fullDecode(data, resampledTo: tall.size)))
        var off = thumbnailOptions(16)
        off.usesEmbeddedThumbnails = false
        let small = try coder.decode(data, options: off)
        #expect(small.hasSamePixels(as: try fullDecode(data, resampledTo: PixelSize(width: 16, height: 12))))
        #expect(try coder.decode(data, options: .init()).size == PixelSize(width: 64, height: 48))
    }

    @Test("an opaque thumbnail of an image with alpha is passed over: the thumbnail keeps the alpha")
    func alphaMustMatch() throws {
        let data = try HEIFFixture.data("thumbnail-no-alpha.heic")
        let image = try coder.decode(data, options: thumbnailOptions(16))
        #expect(image.pixelFormat == .rgba8)
        #expect(image.hasSamePixels(as: try fullDecode(data, resampledTo: PixelSize(width: 16, height: 12))))
    }

    @Test("a thumbnail of another shape (its ispe says 32×16) is passed over; one of the same shape is chosen")
    func aspectRatioMustMatch() throws {
        let data = try HEIFFixture.data("embedded-thumbnail.heic")
        let squashed = try Self.withThumbnailExtents(width: 32, height: 16, in: data)
        let image = try coder.decode(squashed, options: thumbnailOptions(16))
        #expect(image.hasSamePixels(as: try fullDecode(squashed, resampledTo: PixelSize(width: 16, height: 12))))
        // The choice itself, on the unedited file and the edited one.
        let sizes: [PixelSize?] = try [data, squashed].map { file in
            try file.withUnsafeBytes { bytes in
                let context = try HEIFContext(reading: bytes, maxPixelCount: 100_000_000)
                _ = try context.primaryImage()
                let chosen = context.thumbnail(standingInFor: PixelSize(width: 64, height: 48), at: PixelSize(width: 16, height: 12), maxPixelCount: 100_000_000)
                return chosen.map { PixelSize(width: Int(heif_image_handle_get_width($0.handle)), height: Int(heif_image_handle_get_height($0.handle))) }
            }
        }
        #expect(sizes[0] == PixelSize(width: 32, height: 24))
        #expect(sizes[1] == nil)
    }

    @Test("the loader uses embedded thumbnails by default; its configuration turns them off, under another cache key")
    func loaderConfiguration() async throws {
        let data = try HEIFFixture.data("embedded-thumbnail.heic")
        let reference = try HEIFFixture.reference("embedded-thumbnail.thumbnail.ref.png")
        let context = ImageContext(thumbnail: ThumbnailOptions(size: PixelSize(width: 16, height: 16)))
        let on = try PipelineHarness()
        let fromThumbnail = try await on.loader.response(on.serve("/e.heic", data, contentType: "image/heic"), context: context).image
        #expect(fromThumbnail.hasSamePixels(as: ImageResampler.resample(reference, to: PixelSize(width: 16, height: 12))))
        let off = try PipelineHarness { $0.usesEmbeddedThumbnails = false }
        let fromFull = try await off.loader.response(off.serve("/e.heic", data, contentType: "image/heic"), context: context).image
        #expect(fromFull.hasSamePixels(as: try fullDecode(data, resampledTo: PixelSize(width: 16, height: 12))))
        var options = thumbnailOptions(16)
        let keyOn = options.cacheKeySuffix
        options.usesEmbeddedThumbnails = false
        #expect(options.cacheKeySuffix != keyOn)
        #expect(ImageDecodingOptions().cacheKeySuffix == "")
    }

    /// `data` with the `ispe` of the 32×24 thumbnail item changed to
    /// `width`×`height` (the primary image's 64×48 one is left alone).
    static func withThumbnailExtents(width: UInt32, height: UInt32, in data: Data) throws -> Data {
        var bytes = [UInt8](data)
        let marker = Array("ispe".utf8)
        var edited = 0
        var index = 0
        while index + 16 <= bytes.count {
            defer { index += 1 }
            guard Array(bytes[index..<index + 4]) == marker else { continue }
            // 'ispe', version and flags, then width and height (big-endian).
            let fields = index + 8
            let word = { (at: Int) in bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            guard word(fields) == 32, word(fields + 4) == 24 else { continue }
            for (offset, value) in [(fields, width), (fields + 4, height)] {
                for byte in 0..<4 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
            }
            edited += 1
        }
        try #require(edited == 1, "the thumbnail's ispe box")
        return Data(bytes)
    }
}
