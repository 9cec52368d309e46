import Testing
@testable import AsyncWebImage

@Suite("CacheDirectiveList", .timeLimit(.minutes(1)))
struct CacheDirectiveListTests {
    @Test("names are tokens compared without case; arguments are tokens or quoted strings, unquoted")
    func grammar() {
        let list = CacheDirectiveList(#"Max-Age=60, no-cache="a, \"b\"", , foo , bar="x\\y""#)
        #expect(list.directives.map(\.name) == ["max-age", "no-cache", "foo", "bar"])
        #expect(list.first("max-age")?.argument == "60")
        #expect(list.first("no-cache")?.argument == #"a, "b""#)
        #expect(list.first("no-cache")?.isQuoted == true)
        #expect(list.first("foo")?.argument == nil && list.first("foo")?.hasInvalidArgument == false)
        #expect(list.first("bar")?.argument == #"x\y"#)
    }

    @Test("whitespace around = makes no directive (before) or an invalid argument (after); junk after a quoted string is invalid")
    func malformed() {
        #expect(CacheDirectiveList("max-age =5").directives.isEmpty)
        let after = CacheDirectiveList("max-age= 5").first("max-age")
        #expect(after?.argument == nil && after?.hasInvalidArgument == true)
        let junk = CacheDirectiveList(#"max-age="5"x"#).first("max-age")
        #expect(junk?.argument == nil && junk?.hasInvalidArgument == true)
        let unterminated = CacheDirectiveList(#"no-cache="a, b"#).first("no-cache")
        #expect(unterminated?.argument == nil && unterminated?.hasInvalidArgument == true)
        #expect(CacheDirectiveList("max-age=").first("max-age")?.hasInvalidArgument == true)
        #expect(CacheDirectiveList("a b, c").directives.map(\.name) == ["c"])
    }

    @Test("the first of repeated directives is found first")
    func first() {
        let list = CacheDirectiveList("max-age=1800, max-age=1")
        #expect(list.first("max-age")?.argument == "1800")
        #expect(list.directives.count == 2)
    }

    @Test("delta-seconds: digits only, leading zeros allowed, saturating at 2^31")
    func deltaSeconds() {
        #expect(CacheDirectiveList.deltaSeconds("003600") == 3600)
        #expect(CacheDirectiveList.deltaSeconds("0") == 0)
        #expect(CacheDirectiveList.deltaSeconds("000") == 0)
        #expect(CacheDirectiveList.deltaSeconds("2147483647") == 2_147_483_647)
        #expect(CacheDirectiveList.deltaSeconds("2147483649") == 2_147_483_648)
        #expect(CacheDirectiveList.deltaSeconds("99999999999999999999999") == 2_147_483_648)
        #expect(CacheDirectiveList.deltaSeconds("0000000000000000000000001") == 1)
        for invalid in ["", "-1", "1.0", "a1", "1a", " 1", "+1"] {
            #expect(CacheDirectiveList.deltaSeconds(invalid) == nil, "\(invalid)")
        }
    }

    @Test("bounded: at most 64 directives from at most 8 KiB")
    func bounded() {
        let list = CacheDirectiveList(String(repeating: "a, ", count: 1000))
        #expect(list.directives.count == CacheDirectiveList.maxDirectives)
    }
}
