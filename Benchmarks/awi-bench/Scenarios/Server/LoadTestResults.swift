import AWIBenchResults
import Foundation

/// The rows of `bench/run.sh`'s `results.tsv` (one line per server, class
/// and round: req/s, CPU ms per request, peak RSS MiB, wrk's p50 and p99,
/// errors), as result rows: per class, ours against thumbor.
struct LoadTestResults {
    /// One measured window.
    struct Window {
        var server: String
        var group: String
        var round: String
        var requestsPerSecond: Double
        var cpuMilliseconds: Double
        var peakMiB: Double
        var p50: Double?
        var p99: Double?
        var errors: String
    }

    let windows: [Window]

    init(tsv: String) {
        windows = tsv.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 9, let rps = Double(fields[3]), let cpu = Double(fields[4]), let rss = Double(fields[5]) else { return nil }
            return Window(
                server: fields[0], group: fields[1], round: fields[2], requestsPerSecond: rps, cpuMilliseconds: cpu,
                peakMiB: rss, p50: Self.seconds(fields[6]), p99: Self.seconds(fields[7]), errors: fields[8]
            )
        }
    }

    /// wrk's latency text ("812.00us", "45.3ms", "1.20s", "2.00m") in seconds.
    static func seconds(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 1e-6), ("ms", 1e-3), ("m", 60.0), ("s", 1.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }

    /// One row per class (in the order measured), then the identical-requests row.
    func rows(scenario: String, corpus: String?) -> [ResultRow] {
        var groups: [String] = []
        for window in windows where !groups.contains(window.group) { groups.append(window.group) }
        var rows: [ResultRow] = []
        for group in groups {
            for identical in [false, true] {
                let mine = windows.filter { $0.group == group && ($0.round == "identical") == identical }
                let ours = mine.filter { $0.server == "ours" }
                let theirs = mine.filter { $0.server == "thumbor" }
                guard !ours.isEmpty else { continue }
                rows.append(row(scenario: scenario, group: group, identical: identical, ours: ours, theirs: theirs, corpus: corpus))
            }
        }
        return rows
    }

    private func row(scenario: String, group: String, identical: Bool, ours: [Window], theirs: [Window], corpus: String?) -> ResultRow {
        func median(_ values: [Double]) -> Double? { Statistics(values)?.median }
        var row = ResultRow(scenario: scenario, caseName: group + (identical ? " (identical requests)" : "") + " → 256px JPEG q80")
        row.group = identical ? nil : group
        row.unit = "req/CPU-s"
        row.basis = .cpu
        row.baseline = "thumbor 7.8, one process"
        row.iterations = ours.count
        let oursCPU = median(ours.map(\.cpuMilliseconds))
        row.cpuSeconds = oursCPU.map { $0 / 1000 }
        row.throughput = oursCPU.flatMap { $0 > 0 ? 1000 / $0 : nil }
        row.p50 = median(ours.compactMap(\.p50))
        row.p99 = median(ours.compactMap(\.p99))
        row.peakRSS = ours.map(\.peakMiB).max().map { Int($0 * 1_048_576) }
        var note = String(format: "req/s (wall, concurrency 8) ours %.1f", median(ours.map(\.requestsPerSecond)) ?? 0)
        if let theirCPU = median(theirs.map(\.cpuMilliseconds)), theirCPU > 0, let oursCPU, oursCPU > 0 {
            row.baselineThroughput = 1000 / theirCPU
            row.ratio = theirCPU / oursCPU
            // Rounds pair up by their number: the two servers ran one after the other.
            let paired = ours.compactMap { mine in theirs.first { $0.round == mine.round }.map { (mine.cpuMilliseconds, $0.cpuMilliseconds) } }
            if let interval = Statistics.pairedRatioInterval(ours: paired.map(\.0), theirs: paired.map(\.1)) {
                row.ratioInterval = ClosedInterval(interval.low, interval.high)
            }
            note += String(format: ", thumbor %.1f; p99 thumbor %@; peak RSS thumbor %.0f MiB",
                           median(theirs.map(\.requestsPerSecond)) ?? 0, Format.seconds(median(theirs.compactMap(\.p99))), theirs.map(\.peakMiB).max() ?? 0)
            if !identical {
                let target = Target.ratioAtLeast(1.0)
                row.target = target.text
                row.targetRatio = target.minimumRatio
                row.passed = target.isMet(byRatio: row.ratio!)
            }
        } else {
            note += "; thumbor not measured"
        }
        let errors = Set((ours + theirs).map(\.errors)).subtracting(["none"])
        if !errors.isEmpty { note += "; errors: " + errors.sorted().joined(separator: " ") }
        note += "; CPU per request = the server's utime+stime over the requests answered, both pinned to core 0; "
            + (corpus.map { "corpus \($0)" } ?? "the load test's generated mix")
            + (identical ? "; identical concurrent requests (coalescing), our caches off" : "; distinct URLs, our caches off")
        row.note = note
        return row
    }
}
