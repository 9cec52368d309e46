import Testing
@_spi(Benchmarks) @testable import AsyncWebImage

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

    @Test("a comma inside a quoted argument does not split directives")
    func quotedComma() {
        let control = CacheControl(#"no-cache="set-cookie, x-foo", max-age=5"#)
        #expect(control.noCache)
        #expect(control.maxAge == 5)
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
