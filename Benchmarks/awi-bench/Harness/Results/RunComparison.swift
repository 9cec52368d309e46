import Foundation

/// Two runs row by row (`--compare BASE.json`): the change of each row's
/// figure, and whether it is beyond the noise both runs measured.
///
/// A row's figure is its ratio (ours against the baseline measured beside it
/// in the same run, so a faster or slower machine moves both sides). The
/// change counts as a regression or an improvement only when the two runs'
/// 95 % intervals of the ratio do not overlap; overlapping intervals are
/// noise, whatever the size of the change. A row without intervals (a
/// condition, a scenario that builds its rows by hand) is judged by its
/// target (met before, missed now) and, for quality rows, by the library's
/// primary quality metric, which is deterministic for the same files.
public struct RunComparison: Sendable {
    /// What the change of one row is.
    public enum Verdict: String, Sendable, Codable {
        /// The ratio fell, beyond both runs' noise (or the target is missed now).
        case regression
        /// The ratio rose, beyond both runs' noise (or the target is met now).
        case improvement
        /// The change is within the runs' noise.
        case unchanged
        /// The row is in this run only.
        case added
        /// The row is in the base only.
        case removed
        /// The row has no interval and no target or quality change to judge by.
        case unjudged
    }

    /// One row of both runs.
    public struct Entry: Sendable {
        /// ``ResultRow/key``.
        public var key: String
        /// The row in the base run.
        public var base: ResultRow?
        /// The row in this run.
        public var current: ResultRow?
        /// The verdict.
        public var verdict: Verdict
        /// Why.
        public var reason: String
        /// current ÷ base − 1 of the ratio, when both have one.
        public var ratioChange: Double?
    }

    /// Every row of either run, this run's order first, then rows only the base has.
    public private(set) var entries: [Entry] = []
    /// What makes the two runs less comparable (other options, a busy machine).
    public private(set) var warnings: [String] = []
    /// When the base ran.
    public let baseStartedAt: String

    /// Changes of the library's primary quality metric smaller than this are
    /// rounding (the helper prints one decimal).
    public static let qualityTolerance = 0.05

    /// `current` against `base`.
    public init(base: BenchmarkDocument, current: BenchmarkDocument) {
        baseStartedAt = base.environment.startedAt
        if base.quick != current.quick { warnings.append("one run is --quick, the other is not: budgets differ") }
        if base.corpus != current.corpus {
            warnings.append("the corpora differ (\(base.corpus ?? "generated") vs \(current.corpus ?? "generated")): quality rows compare different files")
        }
        for (label, environment) in [("the base", base.environment), ("this run", current.environment)] where environment.wasBusy {
            warnings.append(String(format: "%@ ran on a busy machine (load up to %.1f on %d cores): its wall-clock intervals are wide", label, environment.peakLoad, environment.cores))
        }
        let baseRows = Dictionary(base.rows.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let busy = base.environment.wasBusy || current.environment.wasBusy
        var seen = Set<String>()
        for row in current.rows where seen.insert(row.key).inserted {
            var entry = Self.entry(base: baseRows[row.key], current: row)
            if busy, row.basis == .wall, entry.verdict == .regression || entry.verdict == .improvement {
                entry.reason += " (wall clock, and a run on a busy machine: confirm on an idle one)"
            }
            entries.append(entry)
        }
        // A case the base had in a scenario this run measured is gone; rows of
        // scenarios this run did not select are only counted.
        let measured = Set(current.rows.map(\.scenario))
        var unselected: [String] = []
        for row in base.rows where seen.insert(row.key).inserted {
            if measured.contains(row.scenario) {
                entries.append(Entry(key: row.key, base: row, current: nil, verdict: .removed, reason: "not in this run"))
            } else if !unselected.contains(row.scenario) {
                unselected.append(row.scenario)
            }
        }
        if !unselected.isEmpty {
            warnings.append("the base also has \(unselected.count) scenario(s) this run did not select: " + unselected.joined(separator: ", "))
        }
    }

    /// How many entries have `verdict`.
    public func count(_ verdict: Verdict) -> Int { entries.filter { $0.verdict == verdict }.count }

    private static func entry(base: ResultRow?, current: ResultRow) -> Entry {
        guard let base else { return Entry(key: current.key, base: nil, current: current, verdict: .added, reason: "not in the base") }
        var entry = Entry(key: current.key, base: base, current: current, verdict: .unjudged, reason: "")
        if let old = base.ratio, let new = current.ratio, old > 0 { entry.ratioChange = new / old - 1 }
        if let old = base.ratioInterval, let new = current.ratioInterval {
            let span = "\(Self.interval(old)) → \(Self.interval(new))"
            if new.high < old.low {
                entry.verdict = .regression
                entry.reason = "beyond both runs' noise: " + span
            } else if new.low > old.high {
                entry.verdict = .improvement
                entry.reason = "beyond both runs' noise: " + span
            } else {
                entry.verdict = .unchanged
                entry.reason = "within the runs' noise: " + span
            }
            return entry
        }
        let metric = "library/" + GroupComparison.primaryQualityMetric
        if let old = base.metrics?[metric], let new = current.metrics?[metric] {
            let text = "\(metric) \(Format.significant(old)) → \(Format.significant(new))"
            entry.verdict = new < old - qualityTolerance ? .regression : new > old + qualityTolerance ? .improvement : .unchanged
            entry.reason = text + (entry.verdict == .unchanged ? "" : " (deterministic for the same files)")
            return entry
        }
        switch (base.passed, current.passed) {
        case (true?, false?):
            entry.verdict = .regression
            entry.reason = "target met in the base, missed now (no interval on this row)"
        case (false?, true?):
            entry.verdict = .improvement
            entry.reason = "target missed in the base, met now (no interval on this row)"
        case (let old?, let new?) where old == new:
            entry.verdict = .unchanged
            entry.reason = "target \(new ? "met" : "missed") in both (no interval on this row)"
        default:
            entry.reason = current.isSkipped || base.isSkipped ? "skipped in one of the runs" : "no interval on this row: a change cannot be told from noise"
        }
        return entry
    }

    private static func interval(_ interval: ClosedInterval) -> String {
        Format.ratio(interval.low) + "–" + Format.ratio(interval.high)
    }

    /// The comparison as text: one line per row, then the counts.
    public func render() -> String {
        var output = ["Compared with the run of \(baseStartedAt) (ratio = baseline time / our time; change = this run's ratio / the base's - 1):"]
        output += warnings.map { "note: " + $0 }
        var lines = [["scenario / case", "base", "this run", "change", "verdict", "why"]]
        for entry in entries {
            lines.append([
                entry.key,
                entry.base.map(ResultTable.ratioText) ?? "-",
                entry.current.map(ResultTable.ratioText) ?? "-",
                entry.ratioChange.map { String(format: "%+.1f %%", $0 * 100) } ?? "-",
                entry.verdict == .regression || entry.verdict == .improvement ? entry.verdict.rawValue.uppercased() : entry.verdict.rawValue,
                entry.reason,
            ])
        }
        output += ResultTable.align(lines, leftAligned: [0, 4, 5])
        output.append(summaryLine)
        return output.joined(separator: "\n")
    }

    /// The counts, in one line.
    public var summaryLine: String {
        "compared: \(count(.regression)) regression\(count(.regression) == 1 ? "" : "s"), \(count(.improvement)) improvement\(count(.improvement) == 1 ? "" : "s"), "
            + "\(count(.unchanged)) unchanged, \(count(.unjudged)) not judged, \(count(.added)) new, \(count(.removed)) gone"
    }
}
