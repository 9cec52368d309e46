import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("RequestCacheControl", .timeLimit(.minutes(1)))
struct RequestCacheControlTests {
    @Test("request directives; none without the field; Pragma is not read")
    func directives() throws {
        #expect(RequestCacheControl([:]) == nil)
        #expect(RequestCacheControl([HTTPField.Name("Pragma")!: "no-cache"]) == nil)
        let all = try #require(RequestCacheControl([.cacheControl: "max-age=5, min-fresh=10, max-stale=20, no-cache, no-store"]))
        #expect(all.maxAge == 5 && all.minFresh == 10 && all.maxStale == 20 && all.noCache && all.noStore)
        #expect(RequestCacheControl([.cacheControl: "max-stale"])?.maxStale == .max)
        // A malformed max-age asks for validation; a malformed max-stale accepts nothing stale.
        #expect(RequestCacheControl([.cacheControl: "max-age=x"])?.maxAge == 0)
        #expect(RequestCacheControl([.cacheControl: "max-stale=x"])?.maxStale == nil)
    }
}
