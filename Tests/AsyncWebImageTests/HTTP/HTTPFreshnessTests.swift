import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("HTTPFreshness", .timeLimit(.minutes(1)))
struct HTTPFreshnessTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// The metadata of a 200 with `headers` received at ``now``, to a request with `requestHeaders`.
    static func metadata(_ headers: [String: String], status: Int = 200, requestHeaders: [String: String] = [:]) -> HTTPCacheMetadata {
        var request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        request.headers = HTTPFields(requestHeaders.map { HTTPField(name: HTTPField.Name($0.key)!, value: $0.value) })
        let fields = HTTPFields(headers.map { HTTPField(name: HTTPField.Name($0.key)!, value: $0.value) })
        let head = HTTPResponseHead(statusCode: status, headers: fields, expectedContentLength: nil, url: request.url)
        return HTTPCacheMetadata(head: head, request: request, responseTime: now)
    }

    static func freshness(_ headers: [String: String], status: Int = 200, policy: HTTPCachePolicy = .strictPrivate) -> HTTPFreshness {
        HTTPFreshness(metadata(headers, status: status), policy: policy)
    }

    @Test("max-age: fresh until max-age seconds after the response, minus Age")
    func maxAgeAndAge() {
        let plain = Self.freshness(["Cache-Control": "max-age=60"])
        #expect(plain.freshUntil == Self.now.addingTimeInterval(60))
        #expect(plain.isFresh(at: Self.now.addingTimeInterval(59)))
        #expect(!plain.isFresh(at: Self.now.addingTimeInterval(60)))
        let aged = Self.freshness(["Cache-Control": "max-age=60", "Age": "50"])
        #expect(aged.freshUntil == Self.now.addingTimeInterval(10))
        let tooOld = Self.freshness(["Cache-Control": "max-age=60", "Age": "90"])
        #expect(!tooOld.isFresh(at: Self.now))
    }

    @Test("the apparent age from Date counts when larger than Age")
    func apparentAge() {
        let date = HTTPDate.format(Self.now.addingTimeInterval(-30))
        let freshness = Self.freshness(["Cache-Control": "max-age=60", "Date": date, "Age": "5"])
        #expect(freshness.freshUntil == Self.now.addingTimeInterval(30))
    }

    @Test("s-maxage wins in shared mode only")
    func sharedMaxAge() {
        let headers = ["Cache-Control": "max-age=10, s-maxage=100"]
        #expect(Self.freshness(headers, policy: .strictShared).freshUntil == Self.now.addingTimeInterval(100))
        #expect(Self.freshness(headers, policy: .strictPrivate).freshUntil == Self.now.addingTimeInterval(10))
    }

    @Test("Expires counts from Date; max-age wins over it; an invalid Expires is stale")
    func expires() {
        let date = HTTPDate.format(Self.now)
        let expires = HTTPDate.format(Self.now.addingTimeInterval(120))
        #expect(Self.freshness(["Expires": expires, "Date": date]).freshUntil == Self.now.addingTimeInterval(120))
        #expect(Self.freshness(["Expires": expires, "Cache-Control": "max-age=5"]).freshUntil == Self.now.addingTimeInterval(5))
        #expect(!Self.freshness(["Expires": "0"]).isFresh(at: Self.now))
    }

    @Test("no explicit freshness and no Last-Modified: stale at once (a lifetime of zero), whatever the validators")
    func noInformation() {
        for headers in [[:], ["ETag": "\"a\""], ["Date": HTTPDate.format(Self.now)]] {
            let freshness = Self.freshness(headers)
            #expect(freshness.lifetime == 0, "\(headers)")
            #expect(!freshness.isFresh(at: Self.now), "\(headers)")
            // Stored for stale use (offline, or when the origin fails), if allowed.
            #expect(freshness.mayServeStale, "\(headers)")
        }
    }

    @Test("heuristic freshness: 10% of the time since Last-Modified, at most a week, for heuristically cacheable statuses only")
    func heuristic() {
        let date = HTTPDate.format(Self.now)
        let dayOld = Self.freshness(["Date": date, "Last-Modified": HTTPDate.format(Self.now.addingTimeInterval(-86_400))])
        #expect(dayOld.isHeuristic && dayOld.lifetime == 8_640)
        #expect(dayOld.isFresh(at: Self.now.addingTimeInterval(8_639)))
        #expect(!dayOld.isFresh(at: Self.now.addingTimeInterval(8_640)))
        let ancient = Self.freshness(["Date": date, "Last-Modified": HTTPDate.format(Self.now.addingTimeInterval(-86_400 * 365 * 10))])
        #expect(ancient.lifetime == HTTPFreshness.maxHeuristicLifetime)
        // An explicit lifetime wins; a Last-Modified in the future gives none.
        #expect(Self.freshness(["Cache-Control": "max-age=5", "Last-Modified": HTTPDate.format(Self.now.addingTimeInterval(-86_400))]).lifetime == 5)
        #expect(Self.freshness(["Last-Modified": HTTPDate.format(Self.now.addingTimeInterval(60))]).lifetime == 0)
        // 201 is not heuristically cacheable; 404 is; public makes any status so.
        let lastModified = HTTPDate.format(Self.now.addingTimeInterval(-86_400))
        #expect(Self.freshness(["Last-Modified": lastModified], status: 201).lifetime == 0)
        #expect(Self.freshness(["Last-Modified": lastModified], status: 404).lifetime == 8_640)
        #expect(Self.freshness(["Last-Modified": lastModified, "Cache-Control": "public"], status: 201).lifetime == 8_640)
    }

    @Test("stale on error: disconnected always (unless forbidden), a 5xx only within stale-if-error, never a 404 nor a TLS failure")
    func staleOnError() {
        let lost = ImageError.network(.init(kind: .connectionLost, code: 0, message: "reset"))
        let tls = ImageError.network(.init(kind: .tls, code: 0, message: "handshake"))
        let later = Self.now.addingTimeInterval(30)
        let plain = Self.freshness(["Cache-Control": "max-age=2"])
        #expect(plain.mayServeStale(onError: lost, at: later))
        #expect(plain.mayServeStale(onError: .timeout("slow"), at: later))
        #expect(!plain.mayServeStale(onError: tls, at: later))
        #expect(!plain.mayServeStale(onError: .httpStatus(503), at: later))
        let window = Self.freshness(["Cache-Control": "max-age=2, stale-if-error=60"])
        #expect(window.mayServeStale(onError: .httpStatus(503), at: later))
        #expect(!window.mayServeStale(onError: .httpStatus(503), at: Self.now.addingTimeInterval(63)))
        #expect(!window.mayServeStale(onError: .httpStatus(404), at: later))
        for forbidding in ["max-age=2, must-revalidate", "max-age=2, no-cache, stale-if-error=60"] {
            #expect(!Self.freshness(["Cache-Control": forbidding]).mayServeStale(onError: lost, at: later), "\(forbidding)")
        }
        #expect(!Self.freshness(["Cache-Control": "max-age=2, proxy-revalidate"], policy: .strictShared).mayServeStale(onError: lost, at: later))
        #expect(Self.freshness(["Cache-Control": "max-age=2, proxy-revalidate"]).mayServeStale(onError: lost, at: later))
    }

    @Test("Age: the larger of the apparent age and Age plus the request's delay; invalid Age is ignored")
    func initialAge() {
        var request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        request.headers = [:]
        let head = HTTPResponseHead(
            statusCode: 200, headers: [.cacheControl: "max-age=100", .age: "30"], expectedContentLength: nil, url: request.url
        )
        let metadata = HTTPCacheMetadata(head: head, request: request, requestTime: Self.now.addingTimeInterval(-5), responseTime: Self.now)
        let freshness = HTTPFreshness(metadata, policy: .strictPrivate)
        #expect(freshness.initialAge == 35)
        #expect(freshness.currentAge(at: Self.now.addingTimeInterval(10)) == 45)
        #expect(freshness.freshUntil == Self.now.addingTimeInterval(65))
        #expect(Self.freshness(["Cache-Control": "max-age=100", "Age": "abc"]).initialAge == 0)
    }

    @Test("no-cache is stale at once; ignoring headers is always fresh")
    func noCacheAndIgnore() {
        #expect(!Self.freshness(["Cache-Control": "no-cache, max-age=600"]).isFresh(at: Self.now))
        #expect(Self.freshness(["Cache-Control": "no-cache"], policy: .ignoringHeaders).isFresh(at: Self.now))
        #expect(Self.freshness(["Cache-Control": "max-age=0"], policy: .ignoringHeaders).isFresh(at: Self.now.addingTimeInterval(1e6)))
    }

    @Test("stale-while-revalidate gives a window after expiry, closed by must-revalidate and no-cache")
    func staleWhileRevalidate() {
        let freshness = Self.freshness(["Cache-Control": "max-age=1, stale-while-revalidate=60"])
        #expect(freshness.mayServeWhileRevalidating(at: Self.now.addingTimeInterval(30)))
        #expect(!freshness.mayServeWhileRevalidating(at: Self.now.addingTimeInterval(62)))
        #expect(Self.freshness(["Cache-Control": "max-age=1, must-revalidate, stale-while-revalidate=60"]).staleWhileRevalidateUntil == nil)
        #expect(Self.freshness(["Cache-Control": "no-cache, stale-while-revalidate=60"]).staleWhileRevalidateUntil == nil)
        #expect(Self.freshness(["Cache-Control": "s-maxage=1, stale-while-revalidate=60"], policy: .strictShared).staleWhileRevalidateUntil == nil)
    }

    @Test("storability: no-store, Vary *, and private or Authorization in shared mode")
    func storability() {
        let request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        var authorized = request
        authorized.headers[.authorization] = "Bearer x"
        #expect(!Self.metadata(["Cache-Control": "no-store"]).isStorable(mode: .private, request: request))
        #expect(Self.metadata(["Cache-Control": "no-store"]).isStorable(mode: .ignoringHeaders, request: request))
        #expect(!Self.metadata(["Vary": "Accept, *"]).isStorable(mode: .private, request: request))
        #expect(Self.metadata(["Cache-Control": "private"]).isStorable(mode: .private, request: request))
        #expect(!Self.metadata(["Cache-Control": "private"]).isStorable(mode: .shared, request: request))
        #expect(!Self.metadata(["Cache-Control": "max-age=60"]).isStorable(mode: .shared, request: authorized))
        #expect(Self.metadata(["Cache-Control": "public, max-age=60"]).isStorable(mode: .shared, request: authorized))
    }

    @Test("a policy too large to keep whole is not stored: a 5 KiB Cache-Control, a Vary of 40 fields")
    func oversized() {
        let request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        let longControl = "max-age=60, " + String(repeating: "x", count: 5000)
        let manyNames = (0..<40).map { "X-Field-\($0)" }.joined(separator: ", ")
        #expect(!Self.metadata(["Cache-Control": longControl]).isStorable(mode: .private, request: request))
        #expect(!Self.metadata(["Vary": manyNames]).isStorable(mode: .private, request: request))
        #expect(Self.metadata(["Vary": "Accept, Accept-Language"]).isStorable(mode: .private, request: request))
        #expect(Self.metadata(["Cache-Control": longControl]).isStorable(mode: .ignoringHeaders, request: request))
    }

    @Test("Vary: the values named are recorded; a request with other values does not match")
    func vary() {
        let metadata = Self.metadata(["Vary": "Accept-Language"], requestHeaders: ["Accept-Language": "fr"])
        var french = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        french.headers[HTTPField.Name("accept-language")!] = "fr"
        var german = french
        german.headers[.acceptLanguage] = "de"
        var none = french
        none.headers[.acceptLanguage] = nil
        #expect(metadata.matchesVary(french))
        #expect(!metadata.matchesVary(german))
        #expect(!metadata.matchesVary(none))
    }

    @Test("a 304 merges its fields and restarts the age; the JSON keeps the validators where CacheValidators reads them")
    func refreshAndEncoding() throws {
        let stored = Self.metadata(["Cache-Control": "max-age=1", "ETag": "\"v1\"", "Age": "1"])
        let later = Self.now.addingTimeInterval(100)
        let head = HTTPResponseHead(statusCode: 304, headers: [.cacheControl: "max-age=60"], expectedContentLength: nil, url: URL(string: "http://127.0.0.1/a.png")!)
        let refreshed = stored.refreshed(by: head, responseTime: later)
        #expect(HTTPFreshness(refreshed, policy: .strictPrivate).freshUntil == later.addingTimeInterval(60))
        #expect(refreshed.etag == "\"v1\"")
        let data = try #require(refreshed.encoded)
        #expect(HTTPCacheMetadata(encoded: data) == refreshed)
        #expect(CacheValidators(encoded: data)?.etag == "\"v1\"")
        #expect(HTTPCacheMetadata(encoded: Data("not json".utf8)) == nil)
    }

    @Test("a 304 refreshes the stored response only when its validators describe it (RFC 9111 §4.3.4)")
    func notModifiedSelection() {
        func head(_ headers: [String: String]) -> HTTPResponseHead {
            let fields = HTTPFields(headers.map { HTTPField(name: HTTPField.Name($0.key)!, value: $0.value) })
            return HTTPResponseHead(statusCode: 304, headers: fields, expectedContentLength: nil, url: URL(string: "http://127.0.0.1/a.png")!)
        }
        let strong = Self.metadata(["ETag": "\"v1\"", "Last-Modified": "Tue, 01 Oct 2024 10:00:00 GMT"])
        let weak = Self.metadata(["ETag": "W/\"v1\""])
        let dated = Self.metadata(["Last-Modified": "Tue, 01 Oct 2024 10:00:00 GMT"])
        #expect(strong.isSelected(by: head(["ETag": "\"v1\""])))
        #expect(!strong.isSelected(by: head(["ETag": "\"v2\""])))
        #expect(strong.isSelected(by: head(["ETag": "W/\"v1\""])))
        // The strong comparison never matches a weak stored tag.
        #expect(!weak.isSelected(by: head(["ETag": "\"v1\""])))
        #expect(weak.isSelected(by: head(["ETag": "W/\"v1\""])))
        #expect(!dated.isSelected(by: head(["ETag": "\"v1\""])))
        #expect(dated.isSelected(by: head(["Last-Modified": "Tue, 01 Oct 2024 10:00:00 GMT"])))
        #expect(!dated.isSelected(by: head(["Last-Modified": "Wed, 02 Oct 2024 10:00:00 GMT"])))
        #expect(strong.isSelected(by: head([:])))
    }
}
