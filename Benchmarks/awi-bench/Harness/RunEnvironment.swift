import Foundation

/// Facts about the machine that a reader needs to judge the figures: how many
/// cores, and how busy they were (other processes compiling make wall times
/// noisy; CPU-time ratios hold up better).
struct RunEnvironment: Sendable, Codable {
    var startedAt: String
    var cores: Int
    var loadAverageAtStart: Double?
    var loadAverageAtEnd: Double?
    var wallSeconds: Double?

    static func capture() -> RunEnvironment {
        RunEnvironment(
            startedAt: ISO8601DateFormatter().string(from: Date()),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverageAtStart: loadAverage()
        )
    }

    /// The 1-minute load average from /proc/loadavg.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    /// One line for the end of the table.
    var line: String {
        let start = loadAverageAtStart.map { String(format: "%.2f", $0) } ?? "?"
        let end = loadAverageAtEnd.map { String(format: "%.2f", $0) } ?? "?"
        let wall = wallSeconds.map { String(format: "%.0f s", $0) } ?? "?"
        var line = "\(cores) cores; 1-min load average \(start) at start, \(end) at end; run took \(wall)"
        // Other processes wanted more cores than there are: wall-clock
        // figures mostly measure the scheduler. Say so next to them.
        if max(loadAverageAtStart ?? 0, loadAverageAtEnd ?? 0) > Double(cores) {
            line += "\nWARNING: the machine was busy (load above \(cores)): wall-clock ratios are unreliable; "
                + "the cpu ratios hold up better. Rerun on an idle machine for wall-clock figures."
        }
        return line
    }
}
