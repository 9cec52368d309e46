import Foundation
import Testing
@testable import AsyncWebImage

@Suite("BackgroundRevalidations", .timeLimit(.minutes(1)))
struct BackgroundRevalidationsTests {
    @Test("one per key, at most `limit` at once; cancelAll ends them and they leave the table")
    func bounded() async throws {
        // Given work that runs until cancelled
        let revalidations = BackgroundRevalidations()
        let work: @Sendable () async -> Void = {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        }
        // When more keys than the limit ask, and one key asks twice
        var started = 0
        for index in 0..<(BackgroundRevalidations.limit + 4) {
            if revalidations.start(key: "k\(index)", work) { started += 1 }
        }
        let duplicate = revalidations.start(key: "k0", work)

        // Then only `limit` run, the duplicate is refused
        #expect(started == BackgroundRevalidations.limit)
        #expect(!duplicate)
        #expect(revalidations.count == BackgroundRevalidations.limit)

        // And cancelling ends them all; finished work frees its slot
        revalidations.cancelAll()
        #expect(revalidations.count == 0)
        let restarted = revalidations.start(key: "after", {})
        #expect(restarted)
        for _ in 0..<200 where revalidations.count > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(revalidations.count == 0)
    }
}
