import Foundation
import Logging
import Testing
@testable import AsyncWebImage

@Suite("DecodeStage", .timeLimit(.minutes(1)))
struct DecodeStageTests {
    @Test("bytes to pixels with the stage's coders; a format it has no coder for is a typed error")
    func decode() async throws {
        let fixture = StageFixture()
        let stage = DecodeStage(coders: .builtIn, limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry)
        let image = try await stage.decode(StageFixture.png, options: ImageDecodingOptions())
        #expect(image.width == 4 && image.height == 2)
        #expect(image.pixels == StageFixture.image.pixels)
        // RIFF....WEBP: detected as WebP, which the core's coders do not read.
        let webp = Data("RIFF\u{10}\0\0\0WEBPVP8 ".utf8) + Data(repeating: 0, count: 16)
        await #expect(throws: ImageError.self) { try await stage.decode(webp, options: ImageDecodingOptions()) }
    }

    @Test("a stored entry in a format no coder of the loader reads is kept, and the load says which product reads it")
    func unsupportedEntryIsKept() async throws {
        let fixture = StageFixture()
        let stage = DecodeStage(coders: .builtIn, limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry)
        let webp = Data("RIFF\u{10}\0\0\0WEBPVP8 ".utf8) + Data(repeating: 0, count: 16)
        try await fixture.disk.setData(webp, forKey: "webp", extendedData: nil)
        await #expect(throws: ImageError.unsupportedFormat(.webp)) {
            try await stage.decodeStored(forKey: "webp", in: fixture.cache, options: ImageDecodingOptions())
        }
        #expect(try await fixture.disk.data(forKey: "webp") == webp)
        #expect(ImageError.unsupportedFormat(.webp).description.contains("AsyncWebImageWebP"))
    }

    @Test("a stored entry that does not decode is removed and is a miss; one over a limit is kept")
    func storedEntries() async throws {
        let fixture = StageFixture()
        let stage = DecodeStage(coders: .builtIn, limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry)
        try await fixture.disk.setData(StageFixture.png, forKey: "good", extendedData: nil)
        let good = try #require(try await stage.decodeStored(forKey: "good", in: fixture.cache, options: ImageDecodingOptions()))
        #expect(good.image.pixel(x: 2, y: 1) == [120, 100, 7])
        #expect(good.data == StageFixture.png)

        var damaged = StageFixture.png
        damaged.replaceSubrange(40..<damaged.count, with: Data(repeating: 0xA5, count: damaged.count - 40))
        try await fixture.disk.setData(damaged, forKey: "damaged", extendedData: nil)
        #expect(try await stage.decodeStored(forKey: "damaged", in: fixture.cache, options: ImageDecodingOptions()) == nil)
        #expect(await !fixture.disk.contains("damaged"))

        var small = ImageDecodingOptions()
        small.limits.maxPixelCount = 4
        await #expect(throws: ImageError.self) {
            try await stage.decodeStored(forKey: "good", in: fixture.cache, options: small)
        }
        #expect(await fixture.disk.contains("good"))
        #expect(try await stage.decodeStored(forKey: "absent", in: fixture.cache, options: ImageDecodingOptions()) == nil)
    }
}
