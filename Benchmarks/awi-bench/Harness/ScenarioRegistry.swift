import AWIBenchResults
import Foundation

/// Every scenario, its area, and what a default run measures.
///
/// A scenario is listed here only once the library code it measures exists
/// (no placeholders). The suites are the areas (`--suite decoding`), `full`
/// (everything, `--full`) and `headline`: what a run without `--scenario`
/// or `--suite` measures, chosen to answer the questions people ask first
/// in about five minutes on 2 cores.
enum ScenarioRegistry {
    /// One scenario and where it belongs.
    struct Entry: Sendable {
        let scenario: any Scenario
        let area: ScenarioArea
        /// Whether the default run (the `headline` suite) measures it.
        let headline: Bool
        /// What the headline multiplies its time budgets by (when it runs as
        /// part of the headline, not by name): the five minutes of a default
        /// run, paid in wider intervals.
        var headlineBudget = 1.0

        var name: String { scenario.name }
    }

    static let all: [Entry] = [
        Entry(scenario: DecodeFullScenario(), area: .decoding, headline: true, headlineBudget: 0.5),
        Entry(scenario: AVIFScenario(), area: .decoding, headline: false),
        Entry(scenario: HEICScenario(), area: .decoding, headline: false),
        Entry(scenario: ICCConversionScenario(), area: .decoding, headline: false),
        Entry(scenario: WebPDecodeScenario(), area: .decoding, headline: false),
        Entry(scenario: ThumbnailScenario(), area: .thumbnails, headline: false),
        Entry(scenario: PNGThumbnailScenario(), area: .thumbnails, headline: false),
        Entry(scenario: PyvipsThumbnailScenario(), area: .thumbnails, headline: true, headlineBudget: 0.5),
        Entry(scenario: ThumbnailStagesScenario(), area: .thumbnails, headline: false),
        Entry(scenario: ReducedThumbnailScenario(), area: .thumbnails, headline: false),
        Entry(scenario: ThumbnailRSSScenario(), area: .thumbnails, headline: false),
        Entry(scenario: ThumbnailQualityScenario(), area: .thumbnails, headline: true),
        Entry(scenario: MemoryHitScenario(), area: .caches, headline: false),
        Entry(scenario: CacheRSSScenario(), area: .caches, headline: false),
        Entry(scenario: DiskHitScenario(), area: .caches, headline: true),
        Entry(scenario: SharedTierScenario(), area: .caches, headline: false),
        Entry(scenario: NetworkScenario(), area: .network, headline: false),
        Entry(scenario: CoalescingScenario(), area: .network, headline: false),
        Entry(scenario: ProgressiveScenario(), area: .network, headline: false),
        Entry(scenario: SoakScenario(), area: .network, headline: false),
        Entry(scenario: HTTP2TLSScenario(), area: .network, headline: false),
        Entry(scenario: LoaderCoalescingScenario(), area: .loader, headline: true),
        Entry(scenario: LoaderMemoryHitScenario(), area: .loader, headline: true),
        Entry(scenario: LoaderStartCancelScenario(), area: .loader, headline: false),
        Entry(scenario: LoaderProgressiveScenario(), area: .loader, headline: false),
        Entry(scenario: LoaderFinalLatencyScenario(), area: .loader, headline: false),
        Entry(scenario: RevalidationScenario(), area: .loader, headline: false),
        Entry(scenario: LoaderObservabilityScenario(), area: .loader, headline: false),
        Entry(scenario: AllocatorScenario(), area: .loader, headline: false),
        Entry(scenario: AnimatedWebPScenario(), area: .animation, headline: false),
        Entry(scenario: GIFAnimationScenario(), area: .animation, headline: false),
        Entry(scenario: AnimationPlaybackRSSScenario(), area: .animation, headline: false),
        Entry(scenario: ThumbnailServerScenario(), area: .server, headline: true),
    ]

    /// How the headline presents the rows: the order the questions come in.
    static let headline: [HeadlineSection] = [
        HeadlineSection(
            title: "Thumbnails per class, 256 px: the library's CPU per image on one core against pyvips and Pillow "
                + "(ratio = their time / ours), and SSIMULACRA 2 medians (higher is better), same files",
            scenarios: ["pyvips-thumbnail", "thumbnail-quality"], layout: .groups
        ),
        HeadlineSection(title: "Decoding against the raw codec calls (same layout, CPU per thread)", scenarios: ["decode-full"]),
        HeadlineSection(title: "The loader: memory hit, disk hit, coalescing", scenarios: ["loader-memory-hit", "disk-hit", "loader-coalescing"]),
        HeadlineSection(title: "The thumbnail server against thumbor 7.8, CPU per request on one core", scenarios: ["thumbnail-server"]),
    ]

    /// The suites `--suite` knows, with what each holds.
    static var suites: [(name: String, summary: String)] {
        [("headline", "the default run: " + all.filter(\.headline).map(\.name).joined(separator: ", ")),
         ("full", "every scenario (--full)")]
            + ScenarioArea.allCases.map { area in
                (area.rawValue, all.filter { $0.area == area }.map(\.name).joined(separator: ", "))
            }
    }

    /// The scenarios `scenarios` and `suites` select together, in registry
    /// order; the headline when both are empty.
    static func select(scenarios: [String], suites: [String]) throws(UsageError) -> [Entry] {
        let known = Set(all.map(\.name))
        if let unknown = scenarios.first(where: { !known.contains($0) }) {
            throw UsageError("unknown scenario \(unknown) (--list lists them)")
        }
        let suiteNames = Set(self.suites.map(\.name))
        if let unknown = suites.first(where: { !suiteNames.contains($0) }) {
            throw UsageError("unknown suite \(unknown) (known: \(self.suites.map(\.name).joined(separator: ", ")))")
        }
        let suites = scenarios.isEmpty && suites.isEmpty ? ["headline"] : suites
        return all.filter { entry in
            scenarios.contains(entry.name) || suites.contains { suite in
                suite == "full" || (suite == "headline" && entry.headline) || suite == entry.area.rawValue
            }
        }
    }

    /// Whether `name` was asked for by name, or by its area's suite (not by
    /// `headline` or `full`): a scenario that needs to install something
    /// (thumbor) does so only then.
    static func isNamed(_ name: String, in options: BenchmarkOptions) -> Bool {
        options.scenarios.contains(name) || all.contains { $0.name == name && options.suites.contains($0.area.rawValue) }
    }

    /// Whether `entry` runs as part of the headline in a run of `options`
    /// (then with its ``Entry/headlineBudget``): selected by the headline
    /// suite, not by name, by its area or by `full`.
    static func runsAsHeadline(_ entry: Entry, in options: BenchmarkOptions) -> Bool {
        let headline = options.suites.contains("headline") || (options.suites.isEmpty && options.scenarios.isEmpty)
        return headline && entry.headline && !options.suites.contains("full") && !isNamed(entry.name, in: options)
    }

    /// The text of `--list`.
    static var listing: String {
        var lines = ["suites (--suite NAME; several add up; --scenario NAME adds one scenario):"]
        let suiteWidth = suites.map(\.name.count).max() ?? 0
        lines += suites.map { "  " + $0.name.padding(toLength: suiteWidth + 2, withPad: " ", startingAt: 0) + $0.summary }
        let width = all.map(\.name.count).max() ?? 0
        for area in ScenarioArea.allCases {
            lines.append("")
            lines.append("\(area.rawValue):")
            for entry in all where entry.area == area {
                lines.append("  " + entry.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + entry.scenario.summary
                    + (entry.headline ? " [headline" + (entry.headlineBudget == 1 ? "]" : String(format: ", %.0f %% of its budget]", 100 * entry.headlineBudget)) : ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// What a scenario measures, for `--suite` and the `Scenarios/` folders.
enum ScenarioArea: String, CaseIterable, Sendable {
    case decoding, thumbnails, caches, network, loader, animation, server
}
