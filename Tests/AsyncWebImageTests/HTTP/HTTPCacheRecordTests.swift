import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("HTTPCacheRecord", .timeLimit(.minutes(1)))
struct HTTPCacheRecordTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func record(_ headers: HTTPFields, status: Int = 200, mode: ImageLoader.HTTPCacheMode = .strictPrivate) -> HTTPCacheRecord {
        let request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        let head = HTTPResponseHead(statusCode: status, headers: headers, expectedContentLength: nil, url: request.url)
        return HTTPCacheRecord(HTTPCacheMetadata(head: head, request: request, responseTime: now, mode: mode), policy: HTTPCachePolicy(mode: mode))
    }

    @Test("the head a stored response is served with: its status and fields, Age as current_age (§4.2.3) unless validated")
    func head() {
        let record = Self.record([.cacheControl: "max-age=100000", .age: "30", HTTPField.Name("Template-A")!: "1"], status: 203)
        let url = URL(string: "http://127.0.0.1/a.png")!
        let head = record.responseHead(url: url, at: Self.now.addingTimeInterval(3.5))
        #expect(head.statusCode == 203)
        #expect(head.url == url)
        #expect(head.age == 33)
        #expect(head.headers[.age] == "33")
        #expect(head.headers[values: .age].count == 1)
        #expect(head.headers[HTTPField.Name("Template-A")!] == "1")
        #expect(head.headers[.cacheControl] == "max-age=100000")
        let validated = record.responseHead(url: url, at: Self.now, validated: true)
        #expect(validated.headers[.age] == "30")
    }

    @Test("reuse: freshness, stale-while-revalidate, and the request's own Cache-Control (RFC 9111 §5.2.1)")
    func reuse() {
        func request(_ control: String?) -> DataRequest {
            var request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
            if let control { request.headers[.cacheControl] = control }
            return request
        }
        let record = Self.record([.cacheControl: "max-age=100, stale-while-revalidate=50", .age: "20"])
        let at = Self.now.addingTimeInterval(10) // current age 30, 70 s of freshness left
        #expect(record.reuse(for: request(nil), at: at) == .fresh)
        #expect(record.reuse(for: request("no-cache"), at: at) == .stale)
        #expect(record.reuse(for: request("max-age=29"), at: at) == .stale)
        #expect(record.reuse(for: request("max-age=30"), at: at) == .fresh)
        #expect(record.reuse(for: request("min-fresh=71"), at: at) == .stale)
        #expect(record.reuse(for: request("min-fresh=70"), at: at) == .fresh)
        let stale = Self.now.addingTimeInterval(100) // 20 s stale
        #expect(record.reuse(for: request(nil), at: stale) == .staleWhileRevalidate)
        #expect(record.reuse(for: request("max-stale=20"), at: stale) == .fresh)
        #expect(record.reuse(for: request("max-stale=19"), at: stale) == .staleWhileRevalidate)
        #expect(record.reuse(for: request(nil), at: Self.now.addingTimeInterval(200)) == .stale)
        #expect(record.reuse(for: request("max-stale"), at: Self.now.addingTimeInterval(10_000)) == .fresh)
        // A response that forbids stale use is never served stale, whatever the request says.
        let strict = Self.record([.cacheControl: "max-age=1, must-revalidate"])
        #expect(strict.reuse(for: request("max-stale"), at: Self.now.addingTimeInterval(60)) == .stale)
    }

    @Test("ignoring headers: always fresh, no Vary check, but the head is kept")
    func ignoringHeaders() {
        let record = Self.record([.cacheControl: "no-store", .vary: "Foo"], mode: .ignoringHeaders)
        #expect(record.allowsReuse { DataRequest(url: URL(string: "http://127.0.0.1/a.png")!) })
        #expect(!record.constrainsReuse)
        #expect(record.responseHead(url: URL(string: "http://127.0.0.1/a.png")!, at: Self.now).headers[.cacheControl] == "no-store")
    }
}
