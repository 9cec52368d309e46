import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("MemoryStage", .timeLimit(.minutes(1)))
struct MemoryStageTests {
    let stage = MemoryStage(policy: .strictPrivate)

    @Test("a fresh entry is a hit with its image and its record as the head; a stale one must be revalidated")
    func freshAndStale() async throws {
        let fixture = StageFixture()
        let request = try await fixture.request()
        guard case .miss = await stage.lookup(request) else { Issue.record("an empty cache is a miss"); return }
        let fresh = StageFixture.record([.cacheControl: "max-age=600"], url: fixture.url)
        await fixture.memory.setImage(StageFixture.image, forKey: request.keys.resultKey, http: fresh)
        guard case .hit(let response, let revalidate) = await stage.lookup(request) else { Issue.record("expected a hit"); return }
        #expect(response.image?.pixel(x: 3, y: 1) == [180, 100, 7])
        #expect(response.source == .memory)
        #expect(response.headSource?.head(url: response.url).headers[.cacheControl] == "max-age=600")
        #expect(revalidate == nil)

        let stale = StageFixture.record([.cacheControl: "max-age=10"], age: 60, url: fixture.url)
        await fixture.memory.setImage(StageFixture.image, forKey: request.keys.resultKey, http: stale)
        guard case .stale(let entry) = await stage.lookup(request) else { Issue.record("expected a stale entry"); return }
        #expect(entry.image?.pixel(x: 1, y: 0) == [60, 0, 7])
        // `.refreshCached` takes it anyway, and headers ignored never judge it.
        guard case .hit = await stage.lookup(request, acceptingStale: true) else { Issue.record("accepting stale"); return }
        guard case .hit = await MemoryStage(policy: .ignoringHeaders).lookup(request) else { Issue.record("ignoring headers"); return }
    }

    @Test("stale-while-revalidate: served at once, with the record to revalidate handed back to the loader")
    func staleWhileRevalidate() async throws {
        let fixture = StageFixture()
        let request = try await fixture.request()
        let record = StageFixture.record([.cacheControl: "max-age=10, stale-while-revalidate=600"], age: 60, url: fixture.url)
        await fixture.memory.setImage(StageFixture.image, forKey: request.keys.resultKey, http: record)
        guard case .hit(let response, let revalidate) = await stage.lookup(request) else { Issue.record("expected a hit"); return }
        #expect(response.image != nil)
        #expect(revalidate?.responseHead(url: URL(string: "http://127.0.0.1/a.png")!, at: Date()).headers[.cacheControl] == "max-age=10, stale-while-revalidate=600")
    }

    @Test("a request that does not query memory, or wants no pixels, never reads it")
    func bypass() async throws {
        let fixture = StageFixture()
        let plain = try await fixture.request()
        await fixture.memory.setImage(StageFixture.image, forKey: plain.keys.resultKey)
        guard case .miss = await stage.lookup(try await fixture.request(queryCacheType: .disk)) else { Issue.record("disk only"); return }
        guard case .miss = await stage.lookup(try await fixture.request(options: .avoidDecodeImage)) else { Issue.record("data only"); return }
    }

    @Test("the decoded original serves a transform while fresh, whatever its record once validated")
    func original() async throws {
        let fixture = StageFixture()
        let request = try await fixture.request(transformer: ImageTransformers.Flip(horizontal: true, vertical: false))
        #expect(stage.original(of: request, validated: nil) == nil)
        let stale = StageFixture.record([.cacheControl: "max-age=1"], age: 60, url: fixture.url)
        await fixture.memory.setImage(StageFixture.image, forKey: request.keys.originalImageKey, http: stale)
        #expect(stage.original(of: request, validated: nil) == nil)
        let validated = StageFixture.record([.cacheControl: "max-age=600"], url: fixture.url)
        let found = try #require(stage.original(of: request, validated: validated))
        #expect(found.image.pixel(x: 0, y: 1) == [0, 100, 7])
        #expect(found.record?.responseHead(url: URL(string: "http://127.0.0.1/a.png")!, at: Date()).headers[.cacheControl] == "max-age=600")
        // Without a transformer the original is the result: this lookup is not for it.
        #expect(stage.original(of: try await fixture.request(), validated: validated) == nil)
    }
}
