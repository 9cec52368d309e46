import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("StoredHeaderFields", .timeLimit(.minutes(1)))
struct StoredHeaderFieldsTests {
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        HTTPFields(pairs.map { HTTPField(name: HTTPField.Name($0.0)!, value: $0.1) })
    }

    static func names(_ stored: StoredHeaderFields) -> [String] { stored.fields.map(\.name.rawName) }

    @Test("kept in order with names as sent; the connection's fields, those Connection names, and the proxy's are not")
    func storing() {
        let headers = Self.fields([
            ("Cache-Control", "max-age=60"), ("Connection", "a, B"), ("a", "1"), ("b", "2"), ("c", "3"),
            ("Keep-Alive", "x"), ("Transfer-Encoding", "chunked"), ("TE", "x"), ("Upgrade", "x"), ("Proxy-Connection", "x"),
            ("Proxy-Authenticate", "x"), ("Set-Cookie", "a=b"), ("Set-Cookie", "c=d"), ("X-Test-Header", "v"),
        ])
        let stored = StoredHeaderFields(storing: headers, control: CacheControl("max-age=60"), mode: .private)
        #expect(Self.names(stored) == ["Cache-Control", "c", "Set-Cookie", "Set-Cookie", "X-Test-Header"])
        #expect(stored.httpFields[values: .setCookie] == ["a=b", "c=d"])
    }

    @Test("no-cache=\"a\" fields are never kept; private=\"a\" fields only by a private cache")
    func qualified() {
        let headers = Self.fields([("a", "1"), ("b", "2"), ("c", "3")])
        let noCache = CacheControl(#"no-cache="a, b""#)
        #expect(Self.names(StoredHeaderFields(storing: headers, control: noCache, mode: .private)) == ["c"])
        let privateFields = CacheControl(#"private="b""#)
        #expect(Self.names(StoredHeaderFields(storing: headers, control: privateFields, mode: .private)) == ["a", "b", "c"])
        #expect(Self.names(StoredHeaderFields(storing: headers, control: privateFields, mode: .shared)) == ["a", "c"])
    }

    @Test("a 304 replaces the lines of each field it carries, adds new ones, and never touches Content-Length")
    func update() {
        let stored = StoredHeaderFields(
            storing: Self.fields([
                ("Content-Length", "36"), ("Test-Header", "old"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Kept", "k"),
            ]),
            control: CacheControl(""), mode: .private
        )
        let notModified = Self.fields([
            ("Content-Length", "0"), ("test-header", "new"), ("Set-Cookie", "c=3"), ("Added", "x"), ("Connection", "close"),
        ])
        let updated = stored.updated(by: notModified, control: CacheControl(""), mode: .private)
        let fields = updated.httpFields
        #expect(fields[.contentLength] == "36")
        #expect(fields[HTTPField.Name("Test-Header")!] == "new")
        #expect(fields[values: .setCookie] == ["c=3"])
        #expect(fields[HTTPField.Name("Kept")!] == "k")
        #expect(fields[HTTPField.Name("Added")!] == "x")
        #expect(fields[.connection] == nil)
    }

    @Test("bounded: a header section past 32 KiB keeps its first fields")
    func bounded() {
        let big = String(repeating: "x", count: 10_000)
        let headers = Self.fields((0..<5).map { ("X-Big-\($0)", big) })
        let stored = StoredHeaderFields(storing: headers, control: CacheControl(""), mode: .private)
        #expect(Self.names(stored) == ["X-Big-0", "X-Big-1", "X-Big-2"])
    }
}
