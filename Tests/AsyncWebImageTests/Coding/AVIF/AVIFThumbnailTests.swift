import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageAVIF

/// AVIF thumbnails converted from YUV a band of rows at a time, each band
/// resampled at once: band boundaries must not change a pixel, whatever the
/// chroma subsampling, depth, alpha, crop or orientation.
@Suite("AVIFThumbnail: converted and resampled in bands", .timeLimit(.minutes(2)))
struct AVIFThumbnailTests {
    /// The fixtures of `make-avif-heif-fixtures.sh`: 64×48 4:2:0, 4:4:4 with
    /// alpha, 10-bit, a clean aperture (alone and before irot), irot; 61×47
    /// 4:2:0 with alpha, 4:2:2, 4:0:0 and 10-bit 4:2:0.
    static let fixtures = [
        "rgb8", "rgba8", "rgb10", "clap", "clap-irot1", "irot3", "odd420-alpha", "odd422", "odd400", "odd420-10",
    ]

    static let options: [(String, ImageDecodingOptions)] = [
        ("fit 20×20", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))),
        ("stretched 17×9", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 17, height: 9), preserveAspectRatio: false)),
        ("one side kept", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 10_000, height: 7), preserveAspectRatio: false)),
        ("scale-down", ImageDecodingOptions(scaleDownLargeImages: true, scaleDownLimitBytes: 2000)),
        ("upright", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 21, height: 21), applyOrientation: true)),
    ]

    func decode(_ data: Data, _ options: ImageDecodingOptions, bandRows: Int? = nil) throws -> Image {
        try data.withUnsafeBytes { bytes in try AVIFCoder.decodeImage(bytes, options: options, maxThreads: 1, bandRows: bandRows) }
    }

    @Test("a thumbnail in bands of 2, 4, 6, 10 rows or the default equals the whole image converted then resampled", arguments: fixtures)
    func bandsEqualWholeImage(name: String) throws {
        // Given an AVIF and its whole-image conversion
        let data = try AVIFFixture.data(name + ".avif")
        let full = try decode(data, .init())

        for (label, options) in Self.options {
            // The reference: the stored image resampled to the options' size, then oriented as asked
            let target = try #require(options.targetSize(forStored: full.size, orientation: full.orientation), "\(label)")
            let resampled = ImageResampler.resample(full, to: target).with(orientation: full.orientation)
            let reference = options.applyOrientation ? resampled.applyingOrientation() : resampled
            for bandRows in [2, 4, 6, 10, nil] {
                // When it is decoded as a thumbnail in bands of that height
                let thumbnail = try decode(data, options, bandRows: bandRows)

                // Then it is the same image, byte for byte
                #expect(thumbnail.size == reference.size, "\(name) \(label)")
                #expect(thumbnail.orientation == reference.orientation, "\(name) \(label)")
                #expect(thumbnail.hasSamePixels(as: reference), "\(name) \(label) bands \(bandRows ?? -1)")
            }
        }
    }

    @Test("the new fixtures' full decodes equal avifdec -d 8's", arguments: ["odd420-alpha", "odd422", "odd400", "odd420-10"])
    func fullDecodeMatchesAvifdec(name: String) throws {
        let image = try AVIFCoder().decode(AVIFFixture.data(name + ".avif"), options: .init())
        let reference = try AVIFFixture.reference(name + ".ref.png")
        #expect(image.size == PixelSize(width: 61, height: 47))
        // avifdec writes 4:0:0 as a grey PNG: compared as RGBA
        #expect(PAMReference.rgba(image) == PAMReference.rgba(reference))
    }
}
