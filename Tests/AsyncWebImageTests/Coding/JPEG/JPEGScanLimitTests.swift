import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// JPEGs with more scans, or more scan work, than the limits (issue 12,
/// finding 3): refused from the marker scan before libjpeg decodes, for
/// full decodes, thumbnails and previews alike.
@Suite("JPEG scan limits", .timeLimit(.minutes(2)))
struct JPEGScanLimitTests {
    /// Decodes `data` in full and as a 16 px thumbnail, expecting `error` from both.
    private func expectFullAndThumbnailFail(_ data: Data, options: ImageDecodingOptions = .init(), _ error: ImageError) {
        var thumbnail = options
        thumbnail.thumbnailPixelSize = PixelSize(width: 16, height: 16)
        for options in [options, thumbnail] {
            #expect(throws: error) { try JPEGCoder().decode(data, options: options) }
        }
    }

    @Test("100 scans decode (uniform grey, as built); 101 fail with .tooLarge(.scans) in full and as a thumbnail")
    func scanCountLimit() throws {
        // Given files one scan under and one over the default limit
        let within = ManyScanJPEG.make(width: 64, height: 48, scans: 100)
        let over = ManyScanJPEG.make(width: 64, height: 48, scans: 101)
        // Then the first decodes to the grey it encodes
        let image = try JPEGCoder().decode(within, options: .init())
        #expect(image.width == 64 && image.height == 48)
        #expect(image.withUnsafeBytes { $0.allSatisfy { (127...129).contains($0) } })
        // and the second is refused, counting its scans
        expectFullAndThumbnailFail(over, .tooLarge(.scans, limit: 100, actual: 101))
    }

    @Test("the scan limit is an option: 500 lets a 101-scan file through, 10 refuses an 11-scan one")
    func scanCountConfigurable() throws {
        let file = ManyScanJPEG.make(width: 32, height: 32, scans: 101)
        #expect(try JPEGCoder().decode(file, options: .init(maxScanCount: 500)).width == 32)
        expectFullAndThumbnailFail(
            ManyScanJPEG.make(width: 32, height: 32, scans: 11), options: .init(maxScanCount: 10), .tooLarge(.scans, limit: 10, actual: 11))
    }

    @Test("scan work is bounded: blocks × scans over the budget fail with .tooLarge(.scanBlocks)")
    func scanBlockBudget() throws {
        // Given a 1024×1024 gray file (16,384 blocks) with 40 scans: 655,360 block-scans
        let file = ManyScanJPEG.make(width: 1024, height: 1024, scans: 40)
        // Then it decodes with the default budget, and fails under a smaller one
        #expect(try JPEGCoder().decode(file, options: .init()).height == 1024)
        expectFullAndThumbnailFail(
            file, options: .init(maxScanBlockCount: 600_000), .tooLarge(.scanBlocks, limit: 600_000, actual: 40 * 16_384))
        // and with the default budget, 66 scans of a 7000×7000 frame (765,625 blocks each) are too much work
        expectFullAndThumbnailFail(
            ManyScanJPEG.make(width: 7000, height: 7000, scans: 66),
            .tooLarge(.scanBlocks, limit: 50_000_000, actual: 66 * 765_625))
    }

    @Test("a 7000×7000 file with 5001 scans is refused in well under a second (it cost libjpeg 6 s)", arguments: [nil, 256, 1024])
    func hostileFileRefusedFast(thumbnail: Int?) throws {
        let file = ManyScanJPEG.make(width: 7000, height: 7000, scans: 5001)
        let options = ImageDecodingOptions(thumbnailPixelSize: thumbnail.map { PixelSize(width: $0, height: $0) })
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: ImageError.tooLarge(.scans, limit: 100, actual: 5001)) { try JPEGCoder().decode(file, options: options) }
        #expect(clock.now - start < .seconds(1))
    }

    @Test("previews stop with .tooLarge(.scans) as soon as the scans received pass the limit")
    func previewsRefused() throws {
        // Given a download of a 150-scan file, fed in growing prefixes
        let file = ManyScanJPEG.make(width: 64, height: 64, scans: 150)
        var decoder = try #require(JPEGCoder().makeProgressiveDecoder(options: .init()))
        var failure: (any Error)?
        var previews = 0
        var fedWhenFailed = 0
        for end in stride(from: 8, through: file.count, by: 8) {
            do {
                if try decoder.preview(for: file.prefix(end)) != nil { previews += 1 }
            } catch {
                failure = error
                fedWhenFailed = end
                break
            }
        }
        // Then it fails with the scan limit before the data ends, after some previews
        // (an 8-byte step may complete two of these 10-byte scans at once)
        #expect([101, 102].map { ImageError.tooLarge(.scans, limit: 100, actual: $0) }.contains(failure as? ImageError))
        #expect(fedWhenFailed < file.count)
        #expect(previews > 0)
    }

    @Test("the loader's configuration carries the limits to its decodes")
    func loaderConfiguration() async throws {
        // Given a server with a 30-scan file, and loaders limited to 20 scans and to the default
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        server.route("/scans.jpg", .ok(ManyScanJPEG.make(width: 64, height: 64, scans: 30), contentType: "image/jpeg"))
        var limited = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: nil))
        limited.decodingLimits.maxScanCount = 20
        // Then the limited one refuses it, the default one decodes it
        await #expect(throws: ImageError.tooLarge(.scans, limit: 20, actual: 30)) {
            try await ImageLoader(configuration: limited).response(server.url("/scans.jpg"))
        }
        let loader = ImageLoader(configuration: .init(cache: ImageCache(memory: MemoryCache(), disk: nil)))
        #expect(try await loader.response(server.url("/scans.jpg")).image.width == 64)
    }
}
