import Testing
@testable import AsyncWebImage

@Suite("HTTPStatusCaching", .timeLimit(.minutes(1)))
struct HTTPStatusCachingTests {
    @Test("heuristically cacheable statuses are RFC 9110 §15.1's; understood statuses are the ones RFC 9110 defines")
    func statuses() {
        #expect(HTTPStatusCaching.heuristicallyCacheable == [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501])
        for status in [201, 202, 299, 302, 303, 307, 400, 403, 500, 502, 503, 504, 599] {
            #expect(!HTTPStatusCaching.heuristicallyCacheable.contains(status), "\(status)")
        }
        #expect(HTTPStatusCaching.understood.isSuperset(of: HTTPStatusCaching.heuristicallyCacheable))
        #expect(!HTTPStatusCaching.understood.contains(599) && !HTTPStatusCaching.understood.contains(299))
        #expect(!HTTPStatusCaching.isFinal(103) && HTTPStatusCaching.isFinal(200))
    }
}
