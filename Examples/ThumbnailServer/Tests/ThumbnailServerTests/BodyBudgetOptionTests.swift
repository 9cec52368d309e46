import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// `--body-budget-mib`: the loader's byte budget for upstream bodies held
/// at once (``ImageLoader/Configuration/bodyBudgetBytes``), 2 MiB per CPU
/// permit by default, 0 for none.
@Suite
struct BodyBudgetOptionTests {
    @Test("the flag and its environment variable set the budget; none given leaves it to the CPU permits; negative or not a number is a usage error")
    func options() async throws {
        #expect(try await ServerOptions.parsed([], environment: [:]).bodyBudgetMiB == nil)
        #expect(try await ServerOptions.parsed([], environment: ["THUMBNAIL_BODY_BUDGET_MIB": "8"]).bodyBudgetMiB == 8)
        #expect(try await ServerOptions.parsed(["--body-budget-mib", "0"], environment: ["THUMBNAIL_BODY_BUDGET_MIB": "8"]).bodyBudgetMiB == 0)
        await #expect(throws: UsageError.self) { try await ServerOptions.parsed(["--body-budget-mib", "-1"], environment: [:]) }
        await #expect(throws: UsageError.self) { try await ServerOptions.parsed(["--body-budget-mib", "1g"], environment: [:]) }
    }

    @Test("the renderer's loader gets the budget in bytes; 0 leaves the loader without one")
    func loaderConfiguration() async throws {
        let bounded = try ThumbnailRenderer(options: try await ServerOptions.parsed(["--body-budget-mib", "16"], environment: [:]))
        #expect(bounded.loader.configuration.bodyBudgetBytes == 16 * 1024 * 1024)
        let unbounded = try ThumbnailRenderer(options: try await ServerOptions.parsed(["--body-budget-mib", "0"], environment: [:]))
        #expect(unbounded.loader.configuration.bodyBudgetBytes == nil)
        let automatic = try ThumbnailRenderer(options: try await ServerOptions.parsed([], environment: [:]))
        #expect(automatic.loader.configuration.bodyBudgetBytes == 2 * automatic.cpuLimits.maxConcurrentWork * 1024 * 1024)
    }
}
