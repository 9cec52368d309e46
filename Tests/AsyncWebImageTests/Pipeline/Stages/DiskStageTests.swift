import Foundation
import HTTPTypes
import Logging
import Testing
@testable import AsyncWebImage

@Suite("DiskStage", .timeLimit(.minutes(1)))
struct DiskStageTests {
    static let logger = Logger(label: "awi.stage-test")

    static func stage(_ fixture: StageFixture, mode: ImageLoader.HTTPCacheMode = .strictPrivate) -> DiskStage {
        DiskStage(
            policy: HTTPCachePolicy(mode: mode),
            decode: DecodeStage(coders: .builtIn, limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry),
            decodeLimits: ImageDecodingOptions()
        )
    }

    @Test("the original's bytes, decoded, with the record stored beside them; stale ones must be revalidated")
    func original() async throws {
        let fixture = StageFixture()
        let stage = Self.stage(fixture)
        let request = try await fixture.request()
        guard case .miss = try await stage.lookup(request, logger: Self.logger) else { Issue.record("an empty disk is a miss"); return }

        let fresh = StageFixture.metadata([.cacheControl: "max-age=600", .eTag: "\"v1\""], url: fixture.url)
        try await fixture.disk.setData(StageFixture.png, forKey: request.keys.dataKey, extendedData: fresh.encoded)
        guard case .original(let image, let data, let record, let revalidate, let shared) = try await stage.lookup(request, logger: Self.logger) else {
            Issue.record("expected the original"); return
        }
        #expect(image?.pixels == StageFixture.image.pixels)
        #expect(data == StageFixture.png)
        #expect(record?.metadata.etag == "\"v1\"")
        #expect(!revalidate)
        #expect(!shared, "read from the disk, not the shared tier")

        let stale = StageFixture.metadata([.cacheControl: "max-age=10", .eTag: "\"v0\""], age: 60, url: fixture.url)
        _ = try await fixture.disk.setExtendedData(stale.encoded, forKey: request.keys.dataKey)
        guard case .stale(let entry) = try await stage.lookup(request, logger: Self.logger) else { Issue.record("expected stale"); return }
        #expect(entry.record.metadata.etag == "\"v0\"" && entry.image == nil)
        guard case .original = try await stage.lookup(request, acceptingStale: true, logger: Self.logger) else {
            Issue.record("accepting stale"); return
        }
        // Headers ignored: every stored entry serves.
        guard case .original = try await Self.stage(fixture, mode: .ignoringHeaders).lookup(request, logger: Self.logger) else {
            Issue.record("ignoring headers"); return
        }
    }

    @Test("a transformed entry serves as it is; without it, the original's bytes for the transform to run on")
    func transformed() async throws {
        let fixture = StageFixture()
        let stage = Self.stage(fixture)
        let request = try await fixture.request(transformer: ImageTransformers.Flip(horizontal: true, vertical: false))
        try await fixture.disk.setData(StageFixture.png, forKey: request.keys.dataKey, extendedData: nil)
        guard case .original(let original, _, _, _, _) = try await stage.lookup(request, logger: Self.logger) else {
            Issue.record("expected the original"); return
        }
        #expect(original?.pixel(x: 0, y: 0) == [0, 0, 7])
        let flipped = try ImageTransformers.Flip(horizontal: true, vertical: false).transform(StageFixture.image)
        try await fixture.disk.setData(try PNGCoder().encode(flipped, as: .png, quality: 1), forKey: request.keys.resultKey, extendedData: nil)
        guard case .result(let result, _, _, _, _) = try await stage.lookup(request, logger: Self.logger) else {
            Issue.record("expected the transformed entry"); return
        }
        #expect(result.pixel(x: 0, y: 0) == [180, 0, 7])
    }

    @Test("data-only loads get the bytes undecoded; a load that does not query disk, or a cache without one, misses")
    func bytesAndBypass() async throws {
        let fixture = StageFixture()
        let stage = Self.stage(fixture)
        let request = try await fixture.request(options: .avoidDecodeImage)
        try await fixture.disk.setData(StageFixture.png, forKey: request.keys.dataKey, extendedData: nil)
        guard case .original(let image, let data, _, _, _) = try await stage.lookup(request, logger: Self.logger) else {
            Issue.record("expected the bytes"); return
        }
        #expect(image == nil && data == StageFixture.png)
        guard case .miss = try await stage.lookup(try await fixture.request(queryCacheType: .memory), logger: Self.logger) else {
            Issue.record("memory only"); return
        }
        let diskless = StageFixture(withDisk: false)
        guard case .miss = try await Self.stage(diskless).lookup(try diskless.request(), logger: Self.logger) else {
            Issue.record("no disk"); return
        }
    }
}
