import Foundation

/// Facts about the machine that a reader needs to judge the figures: how many
/// cores, and how busy they were (other processes compiling make wall times
/// noisy; CPU-time ratios hold up better).
public struct RunEnvironment: Sendable, Codable, Equatable {
    /// When the run started, ISO 8601.
    public var startedAt: String
    /// Cores available to the process.
    public var cores: Int
    /// The 1-minute load average when the run started.
    public var loadAverageAtStart: Double?
    /// The 1-minute load average when the run ended.
    public var loadAverageAtEnd: Double?
    /// How long the run took, wall seconds.
    public var wallSeconds: Double?

    /// The environment described by its fields.
    public init(startedAt: String, cores: Int, loadAverageAtStart: Double?, loadAverageAtEnd: Double? = nil, wallSeconds: Double? = nil) {
        self.startedAt = startedAt
        self.cores = cores
        self.loadAverageAtStart = loadAverageAtStart
        self.loadAverageAtEnd = loadAverageAtEnd
        self.wallSeconds = wallSeconds
    }

    /// This machine, now.
    public static func capture() -> RunEnvironment {
        RunEnvironment(
            startedAt: ISO8601DateFormatter().string(from: Date()),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverageAtStart: loadAverage()
        )
    }

    /// The 1-minute load average from /proc/loadavg.
    public static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    /// The higher of the load averages at start and end.
    public var peakLoad: Double { max(loadAverageAtStart ?? 0, loadAverageAtEnd ?? 0) }

    /// Whether other processes wanted more cores than there are at the start
    /// or the end: wall-clock figures then mostly measure the scheduler.
    public var wasBusy: Bool { peakLoad > Double(cores) }

    /// One line for the end of the table (two with the warning of a busy machine).
    public var line: String {
        let start = loadAverageAtStart.map { String(format: "%.2f", $0) } ?? "?"
        let end = loadAverageAtEnd.map { String(format: "%.2f", $0) } ?? "?"
        let wall = wallSeconds.map { String(format: "%.0f s", $0) } ?? "?"
        var line = "\(cores) cores; 1-min load average \(start) at start, \(end) at end; run took \(wall)"
        if let warning { line += "\n" + warning }
        return line
    }

    /// The warning printed beside the figures of a busy machine, `nil` on an idle one.
    public var warning: String? {
        guard wasBusy else { return nil }
        return "WARNING: the machine was busy (load above \(cores)): wall-clock ratios are unreliable; "
            + "the cpu ratios hold up better. Rerun on an idle machine for wall-clock figures."
    }
}
