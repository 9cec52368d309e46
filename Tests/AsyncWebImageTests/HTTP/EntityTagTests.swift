import Testing
@testable import AsyncWebImage

@Suite("EntityTag", .timeLimit(.minutes(1)))
struct EntityTagTests {
    @Test("strong and weak comparison (RFC 9110 §8.8.3.2)")
    func comparison() {
        #expect(EntityTag.matches(#""a""#, #""a""#, weakly: false))
        #expect(!EntityTag.matches(#"W/"a""#, #""a""#, weakly: false))
        #expect(!EntityTag.matches(#"W/"a""#, #"W/"a""#, weakly: false))
        #expect(EntityTag.matches(#"W/"a""#, #""a""#, weakly: true))
        #expect(!EntityTag.matches(#""a""#, #""b""#, weakly: true))
        // Kept exactly: no quoting is added, no case folded.
        #expect(EntityTag.matches("abc", "abc", weakly: false))
        #expect(!EntityTag.matches("abc", #""abc""#, weakly: true))
        #expect(!EntityTag.isWeak(#"w/"a""#))
    }
}
