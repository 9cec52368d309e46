import Testing
@testable import AsyncWebImage

@Suite("CacheControl", .timeLimit(.minutes(1)))
struct CacheControlTests {
    @Test("reads every directive the loader acts on, in any case, with quoted and bare arguments")
    func directives() {
        let control = CacheControl(#"Max-Age=60, s-maxage="120", NO-STORE, no-cache, must-revalidate, private, public, immutable, stale-while-revalidate=30"#)
        #expect(control.maxAge == 60)
        #expect(control.sharedMaxAge == 120)
        #expect(control.noStore && control.noCache && control.mustRevalidate)
        #expect(control.isPrivate && control.isPublic && control.immutable)
        #expect(control.staleWhileRevalidate == 30)
    }

    @Test("an empty or unknown field sets nothing")
    func nothing() {
        for value in ["", " , ,", "foo, bar=baz", "max-ages=3"] {
            let control = CacheControl(value)
            #expect(control == CacheControl(""), "\(value)")
            #expect(control.maxAge == nil && !control.noStore && !control.noCache)
        }
    }

    @Test("a malformed max-age counts as 0 (stale), a huge one saturates at 2^31")
    func malformedAndHuge() {
        #expect(CacheControl("max-age=abc").maxAge == 0)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age").maxAge == 0)
        #expect(CacheControl("max-age=99999999999999999999999").maxAge == 2_147_483_648)
        #expect(CacheControl("stale-while-revalidate=x").staleWhileRevalidate == nil)
    }

    @Test("a comma inside a quoted argument does not split directives; the qualified no-cache names fields, not the response")
    func quotedComma() {
        let control = CacheControl(#"no-cache="set-cookie, X-Foo", max-age=5"#)
        #expect(!control.noCache)
        #expect(control.noCacheFields == ["set-cookie", "x-foo"])
        #expect(control.maxAge == 5)
        // A qualifier that cannot be read names no fields: the whole response is revalidated.
        #expect(CacheControl(#"no-cache="a, max-age=5"#).noCache)
        #expect(CacheControl(#"private="set-cookie""#).privateFields == ["set-cookie"])
        #expect(!CacheControl(#"private="set-cookie""#).isPrivate)
    }

    @Test("a repeated directive counts by its first occurrence, on one line or over several (RFC 9111 §4.2.1)")
    func duplicates() {
        #expect(CacheControl("max-age=1800, max-age=1").maxAge == 1800)
        #expect(CacheControl("max-age=1, max-age=1800").maxAge == 1)
        // Two lines, as HTTPFields joins them.
        #expect(CacheControl("s-maxage=3600, max-age=1").sharedMaxAge == 3600)
        // A malformed first occurrence is not overruled by a valid later one: stale.
        #expect(CacheControl("max-age=abc, max-age=60").maxAge == 0)
    }

    @Test("whitespace around = is not the grammar: max-age =5 is no directive, max-age= 5 a malformed one (stale)")
    func spacesAroundEquals() {
        #expect(CacheControl("max-age =3600").maxAge == nil)
        #expect(CacheControl("max-age= 3600").maxAge == 0)
        #expect(CacheControl("max-age='3600'").maxAge == 0)
        #expect(CacheControl("max-age=3600.0").maxAge == 0)
        #expect(CacheControl(#"max-age="3600""#).maxAge == 3600)
        #expect(CacheControl("max-age=003600").maxAge == 3600)
        #expect(CacheControl(#"extension="max-age=3600", max-age=1"#).maxAge == 1)
    }

    @Test("must-understand, stale-if-error and the other RFC 5861 / 8246 directives")
    func extensions() {
        let control = CacheControl("max-age=3600, no-store, must-understand, stale-if-error=60, stale-while-revalidate=5, immutable")
        #expect(control.mustUnderstand && control.noStore && control.immutable)
        #expect(control.staleIfError == 60 && control.staleWhileRevalidate == 5)
        #expect(CacheControl("stale-if-error=x").staleIfError == nil)
    }

    @Test("a field of a million directives is read in bounded work")
    func hostile() {
        let value = String(repeating: "no-cache,", count: 1_000_000) + "no-store"
        let control = CacheControl(value)
        #expect(control.noCache)
        // The tail beyond the bound is not read.
        #expect(!control.noStore)
    }
}
