import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// Singleton header fields (`Expires`, `Date`, `Age`, `ETag`,
/// `Last-Modified`) sent over several lines by a real loopback server: what
/// the cache makes of them, counted by what the server saw.
@Suite("SingletonField: repeated singleton header lines", .timeLimit(.minutes(2)))
struct SingletonFieldTests {
    typealias Cache = ImageLoaderHTTPCacheTests

    @Test("the lines of a field: absent, one value, the same value twice, two values")
    func reading() {
        let fields: HTTPFields = [.expires: "a", .date: "x", .eTag: "\"1\"", .lastModified: " m "]
        var repeated = fields
        repeated.append(HTTPField(name: .date, value: "x "))
        repeated.append(HTTPField(name: .eTag, value: "\"2\""))
        #expect(repeated.singleton(.age) == .absent)
        #expect(repeated.singleton(.expires) == .value("a"))
        #expect(repeated.singleton(.date) == .value("x"))
        #expect(repeated.singleton(.eTag) == .conflicting)
        #expect(repeated.singleton(.lastModified).value == "m")
        // What HTTPFields' own subscript makes of the same lines: no date.
        #expect(repeated[.date] == "x, x")
    }

    @Test("two identical Expires lines in the future: fresh, served with no request")
    func identicalExpires() async throws {
        // Given a response whose Expires, two minutes ahead, comes twice
        let harness = try Cache.harness()
        let now = Date()
        let expires = HTTPDate.format(now.addingTimeInterval(120))
        let url = try Cache.serve(harness, "/twice.png", [
            ("Date", HTTPDate.format(now)), ("Date", HTTPDate.format(now)), ("Expires", expires), ("Expires", expires),
        ])
        // When it is loaded twice
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let second = try await harness.loader.response(url)
        // Then the second load is a memory hit and the server saw one request
        #expect(second.source == .memory)
        #expect(Cache.counts(harness, "/twice.png") == [1, 0, 0])
    }

    @Test("Expires lines that disagree: stale at once (RFC 9111 §4.2.1), revalidated before the next use")
    func conflictingExpires() async throws {
        let harness = try Cache.harness()
        let now = Date()
        let url = try Cache.serve(harness, "/two.png", [
            ("Expires", HTTPDate.format(now.addingTimeInterval(120))), ("Expires", HTTPDate.format(now.addingTimeInterval(600))),
        ])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        _ = try await harness.loader.response(url)
        #expect(Cache.counts(harness, "/two.png") == [2, 1, 1])
    }

    @Test("Date lines that disagree are no Date: the response time stands in, so max-age counts from arrival")
    func conflictingDate() async throws {
        // A Date an hour old would make max-age=60 stale on arrival; two
        // disagreeing Dates are ignored, so the entry is fresh.
        let harness = try Cache.harness()
        let now = Date()
        let url = try Cache.serve(harness, "/dates.png", [
            ("Cache-Control", "max-age=60"),
            ("Date", HTTPDate.format(now.addingTimeInterval(-3600))), ("Date", HTTPDate.format(now.addingTimeInterval(-7200))),
        ])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(try await harness.loader.response(url).source == .memory)
        #expect(Cache.counts(harness, "/dates.png") == [1, 0, 0])
    }

    @Test("Age over two lines: the first counts (RFC 9111 §5.1); an Age past max-age is stale on arrival")
    func ageOverTwoLines() async throws {
        let harness = try Cache.harness()
        let old = try Cache.serve(harness, "/old.png", [("Cache-Control", "max-age=60"), ("Age", "100"), ("Age", "5")])
        let young = try Cache.serve(harness, "/young.png", [("Cache-Control", "max-age=60"), ("Age", "5"), ("Age", "100")])
        for url in [old, young] {
            _ = try await harness.loader.response(url, options: .waitStoreCache)
            _ = try await harness.loader.response(url)
        }
        #expect(Cache.counts(harness, "/old.png") == [2, 1, 1])
        #expect(Cache.counts(harness, "/young.png") == [1, 0, 0])
    }

    @Test("the same ETag twice: the conditional request names it once, and its 304 refreshes the entry")
    func identicalETags() async throws {
        // Given a no-cache response whose ETag line comes twice (the server adds its own)
        let harness = try Cache.harness()
        let url = try Cache.serve(harness, "/etags.png", [("Cache-Control", "no-cache"), ("ETag", Cache.etag)])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        let decodes = harness.decodes.count
        // When it is used again
        let second = try await harness.loader.response(url)
        // Then one conditional request with the tag as sent, a 304, the memory image, no decode
        #expect(harness.server.statistics("/etags.png").requestHeaders.last?["if-none-match"] == Cache.etag)
        #expect(Cache.counts(harness, "/etags.png") == [2, 1, 1])
        #expect(second.source == .revalidated)
        #expect(harness.decodes.count == decodes)
    }

    @Test("ETags that disagree are no validator: the next use is a full request, with no If-None-Match")
    func conflictingETags() async throws {
        let harness = try Cache.harness()
        let url = try Cache.serve(harness, "/tags.png", [("Cache-Control", "no-cache"), ("ETag", "\"other\"")])
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        _ = try await harness.loader.response(url, options: .waitStoreCache)
        #expect(harness.server.statistics("/tags.png").requestHeaders.last?["if-none-match"] == nil)
        #expect(Cache.counts(harness, "/tags.png") == [2, 0, 0])
    }
}
