import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("ResponseHeadSource", .timeLimit(.minutes(1)))
struct ResponseHeadSourceTests {
    @Test("a received head is the network's, as received; a stored one the cache's, with its tier and Age at the time served")
    func heads() {
        let url = URL(string: "http://127.0.0.1/a.png")!
        let received = DataResponseHead(statusCode: 200, headers: [.cacheControl: "max-age=60", .age: "7"], expectedContentLength: nil, url: url)
        let network = ResponseHeadSource.received(received).head
        #expect(network.tier == .network && network.age == nil && network.headers == received.headers)
        let responseTime = Date(timeIntervalSince1970: 1_700_000_000)
        let record = HTTPCacheRecord(HTTPCacheMetadata(head: received, request: DataRequest(url: url), responseTime: responseTime), policy: .strictPrivate)
        let stored = ResponseHeadSource.stored(
            record, tier: .disk, servedAt: responseTime.addingTimeInterval(5), validated: false, staleError: .timeout("slow")
        ).head
        #expect(stored.tier == .disk && stored.age == 12 && stored.headers[.age] == "12")
        #expect(stored.staleError == .timeout("slow"))
    }
}
