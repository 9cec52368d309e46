import AsyncWebImage
import Foundation
import HTTPTypes
import Testing
@testable import thumbnail_server

/// What an origin's head says about caching (RFC 9111), and what the
/// server then keeps and answers: the pure parts, in process.
struct CachePolicyUnitTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = ThumbnailCachePolicy(maxAge: 86_400, minMaxAge: 0)

    static func origin(_ fields: [HTTPField.Name: String]) -> OriginCacheability {
        var headers = HTTPFields()
        for (name, value) in fields { headers[name] = value }
        return OriginCacheability(fields: headers, responseTime: now)
    }

    @Test("the three HTTP-date forms parse to their instant, as the library's cache reads them; other values do not")
    func httpDates() {
        #expect(HTTPResponseHead.date(fromFieldValue: "Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPResponseHead.date(fromFieldValue: "Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPResponseHead.date(fromFieldValue: "Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
        // The obsolete forms a recipient must accept (RFC 9110 §5.6.7).
        #expect(HTTPResponseHead.date(fromFieldValue: "Sunday, 06-Nov-94 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPResponseHead.date(fromFieldValue: "Sun Nov  6 08:49:37 1994") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPResponseHead.date(fromFieldValue: "Wed, 29 Feb 2027 00:00:00 GMT") == nil)
        #expect(HTTPResponseHead.date(fromFieldValue: "0") == nil)
    }

    @Test("an Expires in an obsolete form gives the lifetime it names; one that is no date, none")
    func obsoleteExpires() {
        // Given origins dated now, expiring an hour later in asctime form, or at a value that is no date
        let later = Self.origin([.date: "Fri, 15 Jan 2027 08:00:00 GMT", .expires: "Fri Jan 15 09:00:00 2027"])
        let broken = Self.origin([.date: "Fri, 15 Jan 2027 08:00:00 GMT", .expires: "soon"])

        // Then the first lives 3,600 s, the second is already stale (RFC 9111 §5.3)
        #expect(later.clientLifetime == 3_600)
        #expect(broken.clientLifetime == 0)
    }

    @Test("private, no-store and no-cache originals are kept nowhere and answered no more permissively", arguments: [
        ("private, no-store", "no-store"),
        ("no-store", "no-store"),
        ("private, max-age=600", "private, max-age=600"),
        ("private", "private, max-age=86400"),
        ("private, no-cache", "private, no-cache"),
        ("no-cache", "no-cache"),
        ("public, no-cache, max-age=600", "no-cache"),
    ])
    func notShared(cacheControl: String, answer: String) {
        let decision = Self.policy.decision(for: Self.origin([.cacheControl: cacheControl]), now: Self.now)
        #expect(decision == .doNotStore(cacheControl: answer, variesOnEverything: false))
    }

    @Test("a shared original's freshness bounds the result: max-age, s-maxage, Expires, Age, the --max-age cap")
    func sharedFreshness() {
        func answer(_ fields: [HTTPField.Name: String], policy: ThumbnailCachePolicy = CachePolicyUnitTests.policy) -> String? {
            guard case .store(let freshness) = policy.decision(for: Self.origin(fields), now: Self.now) else { return nil }
            return freshness.cacheControl(at: Self.now)
        }
        #expect(answer([:]) == "public, max-age=86400")
        #expect(answer([.cacheControl: "public, max-age=60"]) == "public, max-age=60")
        #expect(answer([.cacheControl: "max-age=60", .age: "20"]) == "public, max-age=40")
        #expect(answer([.cacheControl: "max-age=600, s-maxage=60"]) == "public, max-age=600, s-maxage=60")
        #expect(answer([.cacheControl: "max-age=600, must-revalidate"]) == "public, max-age=600, must-revalidate")
        #expect(answer([.cacheControl: "max-age=999999999"]) == "public, max-age=86400")
        #expect(answer([.cacheControl: "max-age=999999999"], policy: ThumbnailCachePolicy(maxAge: 30, minMaxAge: 0)) == "public, max-age=30")
        // Expires against Date; Date an hour before receipt is an age of an hour.
        #expect(answer([.date: "Fri, 15 Jan 2027 08:00:00 GMT", .expires: "Fri, 15 Jan 2027 10:00:00 GMT"]) == "public, max-age=7200")
        #expect(answer([.date: "Fri, 15 Jan 2027 07:00:00 GMT", .expires: "Fri, 15 Jan 2027 10:00:00 GMT"]) == "public, max-age=7200")
        #expect(answer([.date: "Fri, 15 Jan 2027 07:00:00 GMT", .cacheControl: "max-age=7200"]) == "public, max-age=3600")
        let dated = Self.origin([
            .date: "Fri, 15 Jan 2027 08:00:00 GMT", .expires: "Fri, 15 Jan 2027 10:00:00 GMT",
        ])
        #expect(dated.clientLifetime == 7200)
        // The operator's floor raises a short lifetime, for shared originals only.
        let floored = ThumbnailCachePolicy(maxAge: 86_400, minMaxAge: 3600)
        #expect(answer([.cacheControl: "max-age=60"], policy: floored) == "public, max-age=3600")
        #expect(floored.decision(for: Self.origin([.cacheControl: "private, max-age=60"]), now: Self.now)
            == .doNotStore(cacheControl: "private, max-age=60", variesOnEverything: false))
    }

    @Test("stale on arrival (max-age=0, an Expires in the past or unreadable) is answered, not kept")
    func staleOnArrival() {
        for fields: [HTTPField.Name: String] in [
            [.cacheControl: "max-age=0"], [.expires: "0"], [.cacheControl: "max-age=abc"],
            [.date: "Fri, 15 Jan 2027 08:00:00 GMT", .expires: "Fri, 15 Jan 2027 07:00:00 GMT"],
        ] {
            #expect(Self.policy.decision(for: Self.origin(fields), now: Self.now)
                == .doNotStore(cacheControl: "public, max-age=0", variesOnEverything: false), "\(fields)")
        }
    }

    @Test("Vary: * is never kept and passed on; an unknown origin is no-cache")
    func varyAndUnknown() {
        #expect(Self.policy.decision(for: Self.origin([.cacheControl: "max-age=60", .vary: "Accept, *"]), now: Self.now)
            == .doNotStore(cacheControl: "public, max-age=60", variesOnEverything: true))
        #expect(Self.policy.decision(for: .unknown(at: Self.now), now: Self.now)
            == .doNotStore(cacheControl: "no-cache", variesOnEverything: false))
    }

    @Test("a stored result's Cache-Control counts down, and it expires in every tier")
    func freshnessCountsDown() throws {
        guard case .store(let freshness) = Self.policy.decision(for: Self.origin([.cacheControl: "max-age=60"]), now: Self.now) else {
            Issue.record("not stored")
            return
        }
        #expect(freshness.cacheControl(at: Self.now.addingTimeInterval(45)) == "public, max-age=15")
        #expect(freshness.isFresh(at: Self.now.addingTimeInterval(59)))
        #expect(!freshness.isFresh(at: Self.now.addingTimeInterval(60)))
        #expect(ResultFreshness(encoded: freshness.encoded) == freshness)
        #expect(ResultFreshness(encoded: "1 2") == nil)
    }

    @Test("a source URL with credentials is refused by both URL forms")
    func credentialsRefused() {
        #expect(throws: ThumbnailError.badRequest("the source URL must not carry credentials")) {
            try SourceURL.parse("http://user:secret@origin.example/a.jpg")
        }
        #expect(throws: ThumbnailError.self) { try SourceURL.parse("http://user@origin.example/a.jpg") }
        #expect(throws: ThumbnailError.self) {
            try ProcessingRequest(path: "/rs:fit:10:10/plain/http://u:p@origin.example/a.jpg", maxDimension: 100)
        }
        let values = ["url": "https://u:p@o.example/a.jpg", "width": "1", "height": "1"]
        #expect(throws: ThumbnailError.self) { try ThumbnailRequest(parameter: { values[$0] }, maxDimension: 100) }
        #expect((try? SourceURL.parse("https://origin.example/a.jpg?user=x")) != nil)
    }
}
