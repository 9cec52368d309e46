import Foundation

/// What the command line asked for, as the runner and the scenarios read it
/// (``AwiBenchCommand`` parses it).
struct BenchmarkOptions: Sendable {
    /// Scenario names from `--scenario`.
    var scenarios: [String] = []
    /// Suite names from `--suite` (`--full` adds `full`; none: the headline).
    var suites: [String] = []
    /// Where `--json` writes.
    var jsonPath: String?
    /// Where `--report` writes its page.
    var reportDirectory: String?
    /// The run `--compare` compares with.
    var comparePath: String?
    /// A folder of images to use instead of the generated corpus.
    var corpusDirectory: String?
    /// Fewer rounds and shorter budgets: a smoke run for CI.
    var quick = false
    /// Multiplies every time budget.
    var durationScale = 1.0
    /// `--allocator-tuning`: ``ImageLoader/AllocatorTuning/default`` was applied at start (main.swift).
    var allocatorTuning = false

    /// Where the quality scenario writes its 4× crops: `DIR/crops` of
    /// `--report DIR`, else `AWI_QUALITY_CROPS` (how the README's crops are made), else nowhere.
    var qualityCropsDirectory: String? {
        if let reportDirectory { return reportDirectory + "/crops" }
        let variable = ProcessInfo.processInfo.environment["AWI_QUALITY_CROPS"]
        return variable?.isEmpty == false ? variable : nil
    }
}
