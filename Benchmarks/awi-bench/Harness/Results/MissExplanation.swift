import Foundation

/// Why a row missed its target, and whether that calls for action: the
/// figure, the target, what bounds the figure, and the verdict.
///
/// Two kinds of bound are combined: what the run itself shows (the row's
/// interval reaching the target, a machine busier than its cores) and what is
/// known about the case (``TargetBound``: both sides call one shared decoder,
/// the runtime's own floor under a fan-out).
public struct MissExplanation: Sendable, Codable, Equatable {
    /// What to do about the miss.
    public enum Action: String, Sendable, Codable {
        /// Nothing: the figure sits at a known bound the library cannot move.
        case none
        /// Measure again (longer, on an idle machine) before concluding anything.
        case rerun
        /// Look into it: the figure is below the target beyond the run's noise, with no known bound to explain it.
        case investigate
    }

    /// The measured figure, with its interval when the row has one ("0.91× cpu, 0.88–0.95×").
    public var figure: String
    /// The target, as the table shows it.
    public var target: String
    /// What bounds the figure, most specific first.
    public var bounds: [String]
    /// The verdict.
    public var action: Action
    /// One sentence saying why that verdict.
    public var advice: String

    /// How close to a bound a figure must be for the bound to explain the
    /// miss: the last 15 % is what the library does beyond the bounding work
    /// (a resample the raw call skips, a copy), or what a busy machine takes
    /// from memory-bound work in caches and bandwidth, which CPU time does not show.
    public static let closeness = 0.85

    /// The explanation of `row`'s miss in a run on `environment`, given what is
    /// known about the case (`known`, `nil` when nothing is).
    ///
    /// The verdict, in order: within the run's noise (the interval reaches the
    /// target) → rerun; a wall-clock ratio on a busy machine → rerun; a
    /// reference below the target (``ResultRow/reference``: the raw call
    /// alone cannot reach it) and the figure close to it → none, far from it
    /// → investigate; a CPU ratio within 15 % of its target on a busy machine
    /// → rerun; a known bound that needs no action → none; else → investigate.
    public init(row: ResultRow, environment: RunEnvironment, known: TargetBound?) {
        var figure = row.ratio.map { Format.ratio($0) + (row.basis.map { " " + $0.rawValue } ?? "") } ?? row.measured ?? "-"
        if let interval = row.ratioInterval {
            figure += " (this run's 95 % interval \(Format.ratio(interval.low))–\(Format.ratio(interval.high)))"
        }
        self.figure = figure
        target = row.target ?? "-"
        var bounds: [String] = []
        if let known { bounds.append(known.limit) }
        let ratio = row.ratio ?? 0
        let wanted = row.targetRatio
        if let reference = row.reference {
            bounds.append("\(reference.what) reaches \(Format.ratio(reference.ratio)) in this run; the library "
                + String(format: "%.0f %%", 100 * ratio / reference.ratio) + " of that")
        }
        let withinNoise: Bool = if let interval = row.ratioInterval, let wanted { interval.high >= wanted } else { false }
        if withinNoise { bounds.append("the run's own noise: the interval reaches the target") }
        let busy = environment.wasBusy
        if busy {
            bounds.append(String(format: "a busy machine: load average up to %.1f on %d cores", environment.peakLoad, environment.cores)
                + (row.basis == .wall ? " (this ratio is on wall time)" : ""))
        }
        if withinNoise {
            action = .rerun
            advice = "within this run's noise: rerun with --duration-scale 3 (on an idle machine) before acting"
        } else if busy && row.basis == .wall {
            action = .rerun
            advice = "a wall-clock ratio on a busy machine: rerun on an idle one before acting"
        } else if let reference = row.reference, let wanted, reference.ratio < wanted {
            if ratio >= Self.closeness * reference.ratio {
                action = .none
                advice = "no action in the library: the target is above what \(reference.what) reaches here, and the library is close to that"
            } else {
                action = .investigate
                advice = "needs a look: the target is out of reach here, but the library is well below \(reference.what) too"
            }
        } else if busy && row.basis == .cpu && wanted.map({ ratio >= Self.closeness * $0 }) == true {
            action = .rerun
            advice = "within 15 % of the target on a busy machine, whose caches and memory bandwidth CPU time does not account for: rerun on an idle one before acting"
        } else if let known, !known.needsAction {
            action = .none
            advice = "no action: " + known.advice
        } else {
            action = .investigate
            advice = known.map { "needs a look: " + $0.advice }
                ?? "needs a look: below the target beyond this run's noise, and nothing known bounds it"
        }
        self.bounds = bounds
    }

    /// The explanation as indented lines for the text output.
    public var lines: [String] {
        [
            "measured \(figure); target \(target)",
            "bound by: " + (bounds.isEmpty ? "nothing known" : bounds.joined(separator: "; ")),
            "action: \(action.rawValue) — \(advice)",
        ]
    }
}

/// What is known to bound a case's figure, written by whoever knows the case.
public struct TargetBound: Sendable, Equatable {
    /// What limits the figure ("both sides run the same libjpeg-turbo entropy decode").
    public var limit: String
    /// Whether a miss still needs the library to change.
    public var needsAction: Bool
    /// What to do, or why nothing needs doing.
    public var advice: String

    /// A known bound.
    public init(limit: String, needsAction: Bool, advice: String) {
        self.limit = limit
        self.needsAction = needsAction
        self.advice = advice
    }
}
