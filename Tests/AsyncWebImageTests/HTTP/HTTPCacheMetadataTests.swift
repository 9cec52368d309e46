import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("HTTPCacheMetadata", .timeLimit(.minutes(1)))
struct HTTPCacheMetadataTests {
    static let request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)

    static func metadata(_ status: Int, _ headers: HTTPFields, request: DataRequest = request) -> HTTPCacheMetadata {
        let head = HTTPResponseHead(statusCode: status, headers: headers, expectedContentLength: nil, url: request.url)
        return HTTPCacheMetadata(head: head, request: request, responseTime: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("storable by status: heuristically cacheable ones alone, others only with explicit freshness or public (RFC 9111 §3)")
    func byStatus() {
        for status in [200, 203, 204, 404, 410] {
            #expect(Self.metadata(status, [:]).isStorable(mode: .private, request: Self.request), "\(status)")
        }
        for status in [201, 202, 299, 403, 502] {
            #expect(!Self.metadata(status, [:]).isStorable(mode: .private, request: Self.request), "\(status)")
            #expect(Self.metadata(status, [.cacheControl: "max-age=60"]).isStorable(mode: .private, request: Self.request), "\(status)")
            #expect(Self.metadata(status, [.expires: "0"]).isStorable(mode: .private, request: Self.request), "\(status)")
            #expect(Self.metadata(status, [.cacheControl: "public"]).isStorable(mode: .shared, request: Self.request), "\(status)")
        }
        // private makes a response storable by a private cache only; s-maxage by a shared one only.
        #expect(Self.metadata(201, [.cacheControl: "private"]).isStorable(mode: .private, request: Self.request))
        #expect(!Self.metadata(201, [.cacheControl: "s-maxage=60"]).isStorable(mode: .private, request: Self.request))
        #expect(Self.metadata(201, [.cacheControl: "s-maxage=60"]).isStorable(mode: .shared, request: Self.request))
        // Never a partial response nor a 304.
        #expect(!Self.metadata(206, [.cacheControl: "max-age=60"]).isStorable(mode: .private, request: Self.request))
        #expect(!Self.metadata(304, [.cacheControl: "max-age=60"]).isStorable(mode: .private, request: Self.request))
    }

    @Test("must-understand: no-store is ignored for a status the cache knows, and nothing is stored for one it does not")
    func mustUnderstand() {
        let control: HTTPFields = [.cacheControl: "max-age=3600, no-store, must-understand"]
        #expect(Self.metadata(200, control).isStorable(mode: .private, request: Self.request))
        #expect(!Self.metadata(599, control).isStorable(mode: .private, request: Self.request))
        #expect(!Self.metadata(599, [.cacheControl: "max-age=3600, must-understand"]).isStorable(mode: .shared, request: Self.request))
    }

    @Test("a shared cache counts a credential as Authorization")
    func credential() {
        var request = Self.request
        request.credential = .bearer("secret")
        #expect(!Self.metadata(200, [.cacheControl: "max-age=60"], request: request).isStorable(mode: .shared, request: request))
        #expect(Self.metadata(200, [.cacheControl: "max-age=60"], request: request).isStorable(mode: .private, request: request))
        #expect(Self.metadata(200, [.cacheControl: "max-age=60, must-revalidate"], request: request).isStorable(mode: .shared, request: request))
    }

    @Test("a primary entry lists its other variants (one per key, at most 8) and names every stored ETag once")
    func variants() {
        var metadata = Self.metadata(200, [.eTag: #""a""#, .vary: "X-V"])
        for index in 0..<10 { metadata = metadata.listing(.init(secondaryKey: "#vary=\(index)", etag: #""e\#(index)""#)) }
        metadata = metadata.listing(.init(secondaryKey: "#vary=9", etag: #""a""#))
        #expect(metadata.variants?.count == HTTPCacheMetadata.maxVariants)
        #expect(metadata.variants?.last?.secondaryKey == "#vary=9")
        let tags = metadata.storedTags
        #expect(tags.first?.secondaryKey == nil && tags.first?.etag == #""a""#)
        #expect(tags.filter { $0.etag == #""a""# }.count == 1)
        #expect(tags.count == 8)
        // Selected for another request: that request's values, no list.
        var request = Self.request
        request.headers[HTTPField.Name("X-V")!] = "2"
        let selected = metadata.selected(for: request)
        #expect(selected.variants == nil)
        #expect(selected.matchesVary(request) && !metadata.matchesVary(request))
    }

    @Test("the status and the stored fields survive encoding; entries written before decode as a 200 with their policy fields")
    func encoding() throws {
        let metadata = Self.metadata(203, [.cacheControl: "max-age=60", HTTPField.Name("X-A")!: "1", .eTag: "abc"])
        let encoded = try #require(metadata.encoded)
        let decoded = try #require(HTTPCacheMetadata(encoded: encoded))
        #expect(decoded.statusCode == 203)
        #expect(decoded.storedHeaders.httpFields[HTTPField.Name("X-A")!] == "1")
        #expect(decoded.etag == "abc")
        let old = Data(#"{"etag":"\"v1\"","fields":{"cache-control":"max-age=60"},"responseTime":1700000000}"#.utf8)
        let legacy = try #require(HTTPCacheMetadata(encoded: old))
        #expect(legacy.statusCode == 200)
        #expect(legacy.storedHeaders.httpFields[.cacheControl] == "max-age=60")
        #expect(legacy.storedHeaders.httpFields[.eTag] == "\"v1\"")
    }
}
