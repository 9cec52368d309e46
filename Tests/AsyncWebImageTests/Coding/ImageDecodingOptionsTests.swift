import Testing
@testable import AsyncWebImage

@Suite("ImageDecodingOptions geometry and limits", .timeLimit(.minutes(1)))
struct ImageDecodingOptionsTests {
    @Test("a thumbnail fits inside the box and keeps the aspect")
    func fit() {
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        #expect(options.targetSize(forStored: PixelSize(width: 4000, height: 3000), orientation: .up) == PixelSize(width: 256, height: 192))
        #expect(options.targetSize(forStored: PixelSize(width: 3000, height: 4000), orientation: .up) == PixelSize(width: 192, height: 256))
        // Smaller images are not enlarged.
        #expect(options.targetSize(forStored: PixelSize(width: 200, height: 100), orientation: .up) == nil)
    }

    @Test("the thumbnail box applies to the displayed (oriented) size")
    func oriented() {
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 300, height: 100))
        // Stored 1000×3000 turned 90°: displayed 3000×1000 → 300×100 → stored 100×300.
        #expect(options.targetSize(forStored: PixelSize(width: 1000, height: 3000), orientation: .right) == PixelSize(width: 100, height: 300))
    }

    @Test("without preserveAspectRatio the size is exact, never enlarged")
    func stretch() {
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 100, height: 500), preserveAspectRatio: false)
        #expect(options.targetSize(forStored: PixelSize(width: 400, height: 300), orientation: .up) == PixelSize(width: 100, height: 300))
    }

    @Test("coversThumbnailPixelSize covers the box keeping the aspect, never enlarged, and keys apart from fit")
    func cover() {
        var options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        let fitKey = options.cacheKeySuffix
        options.coversThumbnailPixelSize = true
        // 400×300 covering 100×100: the short side reaches 100.
        #expect(options.targetSize(forStored: PixelSize(width: 400, height: 300), orientation: .up) == PixelSize(width: 133, height: 100))
        #expect(options.targetSize(forStored: PixelSize(width: 300, height: 4000), orientation: .up) == PixelSize(width: 100, height: 1333))
        // Oriented: stored 300×400 displayed 400×300 → 133×100 → stored 100×133.
        #expect(options.targetSize(forStored: PixelSize(width: 300, height: 400), orientation: .right) == PixelSize(width: 100, height: 133))
        // Already no larger than what covers the box: full size.
        #expect(options.targetSize(forStored: PixelSize(width: 1000, height: 90), orientation: .up) == nil)
        #expect(options.cacheKeySuffix != fitKey)
        // Without an aspect ratio kept, covering means nothing: the exact size.
        options.preserveAspectRatio = false
        #expect(options.targetSize(forStored: PixelSize(width: 400, height: 300), orientation: .up) == PixelSize(width: 100, height: 100))
    }

    @Test("scaleDownLargeImages keeps decoded bytes under the limit")
    func scaleDown() throws {
        let options = ImageDecodingOptions(scaleDownLargeImages: true)
        let target = try #require(options.targetSize(forStored: PixelSize(width: 8000, height: 6000), orientation: .up))
        #expect(target.width * target.height * 4 <= 60 * 1024 * 1024)
        #expect(target.width * target.height * 4 > 59 * 1024 * 1024)
        #expect(abs(Double(target.width) / Double(target.height) - 4.0 / 3.0) < 0.01)
        #expect(options.targetSize(forStored: PixelSize(width: 2000, height: 2000), orientation: .up) == nil)
    }

    @Test("the pixel limit rejects hostile headers")
    func pixelLimit() throws {
        let options = ImageDecodingOptions()
        try options.checkPixelLimit(PixelSize(width: 10_000, height: 10_000))
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 4_128_062_500)) {
            try options.checkPixelLimit(PixelSize(width: 64250, height: 64250))
        }
        #expect(throws: ImageError.self) { try options.checkPixelLimit(PixelSize(width: 0, height: 10)) }
        #expect(throws: ImageError.self) { try options.checkPixelLimit(PixelSize(width: Int.max, height: Int.max)) }
    }

    @Test("the cache key suffix changes with every option that changes pixels")
    func keys() {
        #expect(ImageDecodingOptions().cacheKeySuffix == "")
        let a = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 10, height: 20)).cacheKeySuffix
        let b = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 10, height: 20), preserveAspectRatio: false).cacheKeySuffix
        let c = ImageDecodingOptions(applyOrientation: true).cacheKeySuffix
        #expect(Set([a, b, c]).count == 3)
    }
}
