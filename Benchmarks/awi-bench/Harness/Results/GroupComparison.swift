/// Rows of several scenarios about the same groups (classes of image) put
/// side by side: the speed of the library against each baseline and the
/// quality metrics of each candidate, per group.
///
/// Generic in what it finds: a *speed row* is a row with a ``ResultRow/group``
/// and a ratio, its baseline named by the first word of
/// ``ResultRow/baseline`` ("pyvips thumbnail_buffer" → `pyvips`); a *quality
/// row* is a row with a group and ``ResultRow/metrics`` named
/// `candidate/metric` (`pillow/ssimulacra2_median`). Candidates are matched
/// to baselines by name, case-insensitively, so whatever candidates,
/// references or metrics a scenario adds show up without code here.
public struct GroupComparison: Sendable {
    /// The metric the text headline and the report's chart show for quality.
    public static let primaryQualityMetric = "ssimulacra2_median"

    /// One group's figures.
    public struct Entry: Sendable {
        /// The group ("baseline JPEG").
        public var group: String
        /// What the speed figures count ("img/s").
        public var unit: String?
        /// The clock the speed figures are on.
        public var basis: TimeBasis?
        /// Throughput per candidate (`library`, `pyvips`, `pillow`), in ``unit``.
        public var speed: [String: Double] = [:]
        /// The library's ratio against each baseline, with the row it came from.
        public var ratios: [(baseline: String, row: ResultRow)] = []
        /// Quality metrics per candidate: candidate → metric → value.
        public var quality: [String: [String: Double]] = [:]
        /// The quality row(s), for their target and notes.
        public var qualityRows: [ResultRow] = []
    }

    /// The groups in the order their first row ran.
    public private(set) var entries: [Entry] = []

    /// The candidates, the library first, then in the order they appear.
    public private(set) var candidates: [String] = []

    /// The comparison of the rows of `scenarios` (every row when `nil`).
    public init(rows: [ResultRow], scenarios: [String]? = nil) {
        var order: [String] = []
        var byGroup: [String: Entry] = [:]
        var candidates: [String] = ["library"]
        func note(_ candidate: String) {
            if !candidates.contains(candidate) { candidates.append(candidate) }
        }
        for row in rows {
            guard let group = row.group, scenarios?.contains(row.scenario) ?? true else { continue }
            if byGroup[group] == nil {
                order.append(group)
                byGroup[group] = Entry(group: group)
            }
            if let ratio = row.ratio, ratio > 0, let baseline = row.baseline {
                let name = Self.candidateName(ofBaseline: baseline)
                note(name)
                byGroup[group]?.unit = row.unit
                byGroup[group]?.basis = row.basis
                if let ours = row.throughput { byGroup[group]?.speed["library"] = ours }
                if let theirs = row.baselineThroughput { byGroup[group]?.speed[name] = theirs }
                byGroup[group]?.ratios.append((name, row))
            }
            if let metrics = row.metrics, !metrics.isEmpty {
                byGroup[group]?.qualityRows.append(row)
                for (key, value) in metrics.sorted(by: { $0.key < $1.key }) {
                    guard let slash = key.firstIndex(of: "/") else { continue }
                    let candidate = String(key[..<slash]).lowercased()
                    let metric = String(key[key.index(after: slash)...])
                    note(candidate)
                    byGroup[group]?.quality[candidate, default: [:]][metric] = value
                }
            }
        }
        entries = order.compactMap { byGroup[$0] }
        self.candidates = candidates
    }

    /// The candidate a baseline's text names: its first word, lowercased.
    public static func candidateName(ofBaseline baseline: String) -> String {
        String(baseline.split(separator: " ").first ?? Substring(baseline)).lowercased()
    }

    /// The groups as a text table: speed per image, ratios against each
    /// baseline with their intervals, then the primary quality metric per candidate.
    public func render() -> String {
        guard !entries.isEmpty else { return "" }
        let speedBaselines = candidates.filter { name in entries.contains { $0.ratios.contains { $0.baseline == name } } }
        let qualityCandidates = candidates.filter { name in entries.contains { $0.quality[name]?[Self.primaryQualityMetric] != nil } }
        var header = ["class", "library per item"]
        header += speedBaselines.map { "vs \($0)" }
        if !qualityCandidates.isEmpty { header += ["|"] + qualityCandidates.map { "SSIM2 \($0)" } }
        var lines = [header]
        for entry in entries {
            var line = [entry.group, entry.speed["library"].map { Format.seconds(1 / $0) + (entry.basis == .cpu ? " cpu" : "") } ?? "-"]
            for baseline in speedBaselines {
                guard let row = entry.ratios.first(where: { $0.baseline == baseline })?.row else {
                    line.append("-")
                    continue
                }
                var text = Format.ratio(row.ratio)
                if let interval = row.ratioInterval { text += " (\(Format.ratio(interval.low))–\(Format.ratio(interval.high)))" }
                if row.passed == false { text += " MISS" }
                line.append(text)
            }
            if !qualityCandidates.isEmpty {
                line.append("|")
                line += qualityCandidates.map { name in
                    entry.quality[name]?[Self.primaryQualityMetric].map { Format.significant($0) } ?? "-"
                }
            }
            lines.append(line)
        }
        return ResultTable.align(lines, leftAligned: [0]).joined(separator: "\n")
    }
}
