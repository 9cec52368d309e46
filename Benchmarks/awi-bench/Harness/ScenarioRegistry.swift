/// Every scenario, in the order a default run measures them.
///
/// A scenario is listed here only once the library code it measures exists
/// (no placeholders): the pipeline (`ImageLoader`) scenarios join this list
/// when the pipeline lands, as one more file each.
enum ScenarioRegistry {
    static let all: [any Scenario] = [
        DecodeFullScenario(),
        AVIFScenario(),
        HEICScenario(),
        ICCConversionScenario(),
        ThumbnailScenario(),
        WebPDecodeScenario(),
        PNGThumbnailScenario(),
        PyvipsThumbnailScenario(),
        MemoryHitScenario(),
        CacheRSSScenario(),
        DiskHitScenario(),
        NetworkScenario(),
        CoalescingScenario(),
        ProgressiveScenario(),
        SoakScenario(),
        LoaderCoalescingScenario(),
        LoaderMemoryHitScenario(),
        LoaderStartCancelScenario(),
        LoaderProgressiveScenario(),
        LoaderFinalLatencyScenario(),
        RevalidationScenario(),
        LoaderObservabilityScenario(),
        HTTP2TLSScenario(),
        SharedTierScenario(),
        AnimatedWebPScenario(),
        AllocatorScenario(),
        ThumbnailStagesScenario(),
        GIFAnimationScenario(),
        AnimationPlaybackRSSScenario(),
        ThumbnailRSSScenario(),
        ReducedThumbnailScenario(),
        ThumbnailQualityScenario(),
    ]

    /// The scenarios `names` select, in registry order; every scenario that
    /// runs by default when `names` is empty.
    static func select(_ names: [String]) throws(UsageError) -> [any Scenario] {
        if names.isEmpty { return all.filter(\.runsByDefault) }
        let known = Set(all.map(\.name))
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw UsageError("unknown scenario \(unknown) (known: \(all.map(\.name).joined(separator: ", ")))")
        }
        return all.filter { names.contains($0.name) }
    }

    /// The text of `--scenario list`.
    static var listing: String {
        let width = all.map(\.name.count).max() ?? 0
        return all.map { scenario in
            scenario.name + String(repeating: " ", count: width - scenario.name.count + 2) + scenario.summary
                + (scenario.runsByDefault ? "" : " (only when named)")
        }.joined(separator: "\n")
    }
}
