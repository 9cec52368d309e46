import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("ResponseHeadSource", .timeLimit(.minutes(1)))
struct ResponseHeadSourceTests {
    @Test("a received head is the network's, as received; a stored one the cache's, with Age at the time served and the load's URL")
    func heads() {
        let url = URL(string: "http://127.0.0.1/a.png")!
        let received = HTTPResponseHead(statusCode: 200, headers: [.cacheControl: "max-age=60", .age: "7"], expectedContentLength: nil, url: url)
        let network = ResponseHeadSource.received(received).head(url: url)
        #expect(network == received && network.age == nil)
        let responseTime = Date(timeIntervalSince1970: 1_700_000_000)
        let record = HTTPCacheRecord(HTTPCacheMetadata(head: received, request: DataRequest(url: url), responseTime: responseTime), policy: .strictPrivate)
        let asked = URL(string: "http://127.0.0.1/b.png")!
        let stored = ResponseHeadSource.stored(
            record, servedAt: responseTime.addingTimeInterval(5), validated: false, staleError: .timeout("slow")
        ).head(url: asked)
        #expect(stored.age == 12 && stored.headers[.age] == "12")
        #expect(stored.url == asked && stored.timings == nil && stored.expectedContentLength == nil)
    }
}
