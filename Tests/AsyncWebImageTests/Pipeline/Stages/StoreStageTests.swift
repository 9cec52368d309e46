import Foundation
import HTTPTypes
import Logging
import Testing
@testable import AsyncWebImage

@Suite("StoreStage", .timeLimit(.minutes(1)))
struct StoreStageTests {
    static let logger = Logger(label: "awi.stage-test")

    static func stage(_ fixture: StageFixture) -> StoreStage {
        StoreStage(coders: .builtIn, limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry, transformedImageQuality: 0.9)
    }

    @Test("a network load with a transformer: original and result in memory, the bytes and the transformed PNG on disk")
    func network() async throws {
        let fixture = StageFixture()
        let flip = ImageTransformers.Flip(horizontal: true, vertical: false)
        let request = try await fixture.request(options: .waitStoreCache, transformer: flip, originalStoreCacheType: .all)
        let flipped = try flip.transform(StageFixture.image)
        let metadata = StageFixture.metadata([.cacheControl: "max-age=600", .eTag: "\"s\""], url: fixture.url)
        let storage = ResponseStorage(record: HTTPCacheRecord(metadata, policy: .strictPrivate), extendedData: metadata.encoded)
        let error = try await Self.stage(fixture).store(
            request, original: StageFixture.image, image: flipped, data: StageFixture.png, storage: storage,
            source: .none, sharedWritten: false, logger: Self.logger
        )
        #expect(error == nil)
        #expect(fixture.memory.entry(forKey: request.keys.originalImageKey)?.image.pixel(x: 0, y: 0) == [0, 0, 7])
        #expect(fixture.memory.entry(forKey: request.keys.resultKey)?.image.pixel(x: 0, y: 0) == [180, 0, 7])
        #expect(fixture.memory.entry(forKey: request.keys.resultKey)?.http?.metadata.etag == "\"s\"")
        #expect(try await fixture.disk.data(forKey: request.keys.dataKey) == StageFixture.png)
        #expect(try await fixture.storedMetadata(forKey: request.keys.dataKey)?.etag == "\"s\"")
        let written = try #require(try await fixture.disk.data(forKey: request.keys.resultKey))
        #expect(try PNGCoder().decode(written, options: ImageDecodingOptions()).pixels == flipped.pixels)
    }

    @Test("by default the original stays out of memory when a transformer runs (only the result is kept)")
    func originalNotKept() async throws {
        let fixture = StageFixture()
        let flip = ImageTransformers.Flip(horizontal: true, vertical: false)
        let request = try await fixture.request(options: .waitStoreCache, transformer: flip)
        _ = try await Self.stage(fixture).store(
            request, original: StageFixture.image, image: try flip.transform(StageFixture.image), data: StageFixture.png,
            storage: ResponseStorage(), source: .none, sharedWritten: false, logger: Self.logger
        )
        #expect(fixture.memory.entry(forKey: request.keys.originalImageKey) == nil)
        #expect(fixture.memory.entry(forKey: request.keys.resultKey) != nil)
        #expect(await fixture.disk.contains(request.keys.dataKey))
    }

    @Test("bytes that came from disk are not written again; a response that may not be stored goes nowhere")
    func sourcesAndNoStore() async throws {
        let fixture = StageFixture()
        let request = try await fixture.request(options: .waitStoreCache)
        _ = try await Self.stage(fixture).store(
            request, original: StageFixture.image, image: StageFixture.image, data: StageFixture.png, storage: ResponseStorage(),
            source: .disk, sharedWritten: false, logger: Self.logger
        )
        #expect(fixture.memory.entry(forKey: request.keys.resultKey) != nil)
        #expect(await !fixture.disk.contains(request.keys.dataKey))

        let other = StageFixture()
        let noStore = try await other.request(options: .waitStoreCache)
        _ = try await Self.stage(other).store(
            noStore, original: StageFixture.image, image: StageFixture.image, data: StageFixture.png,
            storage: ResponseStorage(isStorable: false), source: .none, sharedWritten: false, logger: Self.logger
        )
        #expect(other.memory.entry(forKey: noStore.keys.resultKey) == nil)
        #expect(await !other.disk.contains(noStore.keys.dataKey))
    }

    @Test("a 304's refreshed metadata replaces the stored metadata and the memory records, keeping bytes and images")
    func refreshed() async throws {
        let fixture = StageFixture()
        let request = try await fixture.request()
        let old = StageFixture.metadata([.cacheControl: "max-age=10", .eTag: "\"r\""], age: 60, url: fixture.url)
        try await fixture.disk.setData(StageFixture.png, forKey: request.keys.dataKey, extendedData: old.encoded)
        await fixture.memory.setImage(StageFixture.image, forKey: request.keys.resultKey, http: HTTPCacheRecord(old, policy: .strictPrivate))
        let new = StageFixture.metadata([.cacheControl: "max-age=900", .eTag: "\"r\""], url: fixture.url)
        await Self.stage(fixture).storeRefreshed(new, for: request, policy: .strictPrivate)
        let stored = try #require(try await fixture.storedMetadata(forKey: request.keys.dataKey))
        #expect(HTTPCacheRecord(stored, policy: .strictPrivate).freshness.lifetime == 900)
        #expect(try await fixture.disk.data(forKey: request.keys.dataKey) == StageFixture.png)
        let entry = try #require(fixture.memory.entry(forKey: request.keys.resultKey))
        #expect(entry.image.pixels == StageFixture.image.pixels)
        #expect(entry.http?.freshness.lifetime == 900)
    }
}
