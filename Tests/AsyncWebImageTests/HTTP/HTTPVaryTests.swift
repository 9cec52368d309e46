import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("HTTPVary", .timeLimit(.minutes(1)))
struct HTTPVaryTests {
    static let foo = HTTPField.Name("Foo")!

    static func headers(_ pairs: [(HTTPField.Name, String)]) -> HTTPFields {
        HTTPFields(pairs.map { HTTPField(name: $0.0, value: $0.1) })
    }

    @Test("names: lower-cased, empty members dropped, * kept")
    func names() {
        #expect(HTTPVary.names("Foo, , Accept-Language") == ["foo", "accept-language"])
        #expect(HTTPVary.names(", *") == ["*"])
        #expect(HTTPVary.names(nil).isEmpty)
    }

    @Test("values are normalised as §4.1 allows: lines combined, the whole trimmed; list fields of known syntax respaced and case-folded")
    func normalisation() {
        let combined = Self.headers([(Self.foo, "1"), (Self.foo, "2")])
        #expect(HTTPVary.normalisedValue("foo", of: combined) == HTTPVary.normalisedValue("foo", of: Self.headers([(Self.foo, "1, 2")])))
        let english = HTTPVary.normalisedValue("accept-language", of: Self.headers([(.acceptLanguage, "en, de")]))
        #expect(HTTPVary.normalisedValue("accept-language", of: Self.headers([(.acceptLanguage, "eN, De")])) == english)
        #expect(HTTPVary.normalisedValue("accept-language", of: Self.headers([(.acceptLanguage, " en ,   de")])) == english)
        // Order is meaningful, and the syntax of an unknown field is unknown: inner spaces stay.
        #expect(HTTPVary.normalisedValue("accept-language", of: Self.headers([(.acceptLanguage, "de, en")])) != english)
        #expect(HTTPVary.normalisedValue("foo", of: Self.headers([(Self.foo, "1,2")])) != HTTPVary.normalisedValue("foo", of: Self.headers([(Self.foo, "1, 2")])))
        #expect(HTTPVary.normalisedValue("foo", of: [:]) == nil)
    }

    @Test("matching: absent on both sides matches, absent on one does not, * never matches")
    func matching() {
        let stored = HTTPVary.values(of: ["foo", "bar"], in: Self.headers([(Self.foo, "1")]))
        #expect(HTTPVary.matches(names: ["foo", "bar"], storedValues: stored, headers: Self.headers([(Self.foo, "1")])))
        #expect(!HTTPVary.matches(names: ["foo", "bar"], storedValues: stored, headers: Self.headers([(Self.foo, "2")])))
        #expect(!HTTPVary.matches(names: ["foo", "bar"], storedValues: stored, headers: [:]))
        #expect(!HTTPVary.matches(names: ["*"], storedValues: [:], headers: [:]))
    }

    @Test("secondary keys: equal for requests that match, different otherwise (absent is not empty)")
    func secondaryKeys() {
        let names = ["foo", "accept-language"]
        let a = HTTPVary.secondaryKey(names: names, headers: Self.headers([(Self.foo, "1"), (.acceptLanguage, "en, de")]))
        let b = HTTPVary.secondaryKey(names: names, headers: Self.headers([(.acceptLanguage, "EN,de"), (Self.foo, "1")]))
        let c = HTTPVary.secondaryKey(names: names, headers: Self.headers([(Self.foo, "2"), (.acceptLanguage, "en, de")]))
        let absent = HTTPVary.secondaryKey(names: ["foo"], headers: [:])
        let empty = HTTPVary.secondaryKey(names: ["foo"], headers: Self.headers([(Self.foo, "")]))
        #expect(a == b)
        #expect(a != c)
        #expect(absent != empty)
        #expect(a.hasPrefix("#vary=") && !a.contains("en"))
    }
}
