/// One line of the result table (and one object of the JSON output).
///
/// Times are seconds per operation; what an operation is (one decode, one
/// round of 1,000 fetches) is said by ``unit`` and ``note``. The ratio is
/// always *speed relative to the baseline*: baseline time ÷ our time on
/// ``basis``, so above 1 means faster than the baseline.
public struct ResultRow: Sendable, Codable, Equatable {
    /// The scenario's name (what `--scenario` selects).
    public var scenario: String
    /// The case within the scenario; with ``scenario``, the row's identity across runs.
    public var caseName: String
    /// The scenario's area (`decoding`, `thumbnails`, …), set by the runner from the registry.
    public var area: String?
    /// What the row is about when rows of several scenarios describe the same
    /// thing (a class of image: "baseline JPEG"), so a report can put them side by side.
    public var group: String?
    /// Operations (or units: megapixels, megabytes) per second of ``basis`` time.
    public var throughput: Double?
    /// What ``throughput`` counts per second: "MP/s", "MB/s", "req/s", "hits/s".
    public var unit: String?
    /// Median wall seconds per operation.
    public var p50: Double?
    /// 90th-percentile wall seconds per operation.
    public var p90: Double?
    /// 99th-percentile wall seconds per operation.
    public var p99: Double?
    /// Median CPU seconds per operation.
    public var cpuSeconds: Double?
    /// Peak resident set size during the case, bytes.
    public var peakRSS: Int?
    /// What the baseline is.
    public var baseline: String?
    /// The baseline's throughput, in ``unit``.
    public var baselineThroughput: Double?
    /// Baseline time ÷ our time.
    public var ratio: Double?
    /// The run's own noise around ``ratio``: a 95 % confidence interval of
    /// the median of the per-round ratios (each round times both sides back
    /// to back), by order statistics. `nil` when the row has no paired rounds.
    public var ratioInterval: ClosedInterval?
    /// The clock ``ratio`` and ``throughput`` are computed on.
    public var basis: TimeBasis?
    /// What the case must achieve, as text.
    public var target: String?
    /// The smallest ratio that meets the target, when the target is a ratio.
    public var targetRatio: Double?
    /// Whether the target was met (`nil`: no target, or not measurable).
    public var passed: Bool?
    /// The figures a target that is not a ratio is judged on, against the
    /// baseline's ("area median 88.9 vs pyvips 89.1"): what a missed
    /// target's explanation shows as measured.
    public var measured: String?
    /// What the same work reaches without the library, against the same
    /// baseline in the same run (the raw codec call alone, the runtime's bare
    /// fan-out): how far up the ratio can go by wrapping that work.
    public var reference: ReferencePoint?
    /// Why a missed target missed, and whether it needs action (set for every missed target).
    public var explanation: MissExplanation?
    /// Timed rounds per side.
    public var iterations: Int?
    /// Named figures beyond the columns, `candidate/metric` (quality scores per
    /// candidate: `library/ssimulacra2_median`), shown by the report as they come.
    public var metrics: [String: Double]?
    /// Anything the reader needs to interpret the row (or the error that stopped it).
    public var note: String?

    /// An empty row for `caseName` of `scenario`.
    public init(scenario: String, caseName: String) {
        self.scenario = scenario
        self.caseName = caseName
    }

    /// The row's identity across runs (what `--compare` matches on).
    public var key: String { scenario + " / " + caseName }

    /// Whether the row reports a case that could not run (an error, not a skip).
    public var isError: Bool { note?.hasPrefix("error:") == true }

    /// Whether the row reports a scenario skipped for a missing tool.
    public var isSkipped: Bool { note?.hasPrefix("skipped:") == true }

    private enum CodingKeys: String, CodingKey {
        case scenario, caseName = "case", area, group, throughput, unit, p50, p90, p99, cpuSeconds, peakRSS, baseline,
            baselineThroughput, ratio, ratioInterval, basis, target, targetRatio, passed, reference, explanation, iterations, metrics, note
    }
}

/// A ratio reached without the library, and by what.
public struct ReferencePoint: Sendable, Codable, Equatable {
    /// The ratio against the row's baseline.
    public var ratio: Double
    /// What reached it ("raw tjDecompress2 at 1/4 scale, no resample").
    public var what: String

    /// `ratio`, reached by `what`.
    public init(ratio: Double, what: String) {
        self.ratio = ratio
        self.what = what
    }
}

/// A closed interval of two figures, encoded as `[low, high]`.
public struct ClosedInterval: Sendable, Codable, Equatable {
    /// The lower end.
    public var low: Double
    /// The upper end.
    public var high: Double

    /// The interval from `low` to `high` (swapped when given the other way round).
    public init(_ low: Double, _ high: Double) {
        self.low = min(low, high)
        self.high = max(low, high)
    }

    /// Whether `value` lies in the interval.
    public func contains(_ value: Double) -> Bool { low <= value && value <= high }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        self.init(try container.decode(Double.self), try container.decode(Double.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(low)
        try container.encode(high)
    }
}
