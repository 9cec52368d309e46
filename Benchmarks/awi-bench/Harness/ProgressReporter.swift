import AWIBenchResults
import Glibc
import Synchronization

/// Shows where the run is: a redrawn bar on a terminal, plain lines otherwise
/// (CI logs, pipes), always on standard error so standard output holds only
/// the table.
final class ProgressReporter: Sendable {
    private struct State {
        var scenarioIndex = 0
        var scenarioName = ""
        var caseName = ""
        var fraction = 0.0
        var caseStart = 0.0
        var lastDraw = 0.0
    }

    private let interactive: Bool
    private let scenarioCount: Int
    private let state = Mutex(State())

    /// - Parameter scenarioCount: how many scenarios the run has, for the bar's "3/9".
    init(scenarioCount: Int) {
        self.scenarioCount = scenarioCount
        interactive = isatty(STDERR_FILENO) == 1
    }

    /// A scenario starts.
    func beginScenario(_ name: String, index: Int) {
        state.withLock {
            $0.scenarioIndex = index
            $0.scenarioName = name
            $0.caseName = ""
        }
        if !interactive { emit("[\(index + 1)/\(scenarioCount)] \(name)\n") }
    }

    /// One case of the current scenario starts.
    func beginCase(_ name: String) {
        let now = ResourceUsage.wallSeconds()
        state.withLock {
            $0.caseName = name
            $0.fraction = 0
            $0.caseStart = now
            $0.lastDraw = 0
        }
        if interactive { draw(force: true) } else { emit("  \(name) …\n") }
    }

    /// How far the current case is, 0...1. Redraws at most 10 times a second.
    func update(fraction: Double) {
        state.withLock { $0.fraction = fraction }
        if interactive { draw(force: false) }
    }

    /// The current case is done; `summary` is a few words about it.
    func endCase(_ summary: String) {
        let (name, elapsed) = state.withLock { ($0.caseName, ResourceUsage.wallSeconds() - $0.caseStart) }
        if interactive {
            clearLine()
        } else {
            emit("  \(name): \(summary) (\(Format.seconds(elapsed)))\n")
        }
    }

    /// A line that must stay visible (corpus generation, a skipped scenario).
    func message(_ text: String) {
        if interactive { clearLine() }
        emit(text + "\n")
        if interactive { draw(force: true) }
    }

    /// Clears the bar before the table is printed.
    func finish() {
        if interactive { clearLine() }
    }

    private func draw(force: Bool) {
        let now = ResourceUsage.wallSeconds()
        let snapshot: State? = state.withLock {
            if !force && now - $0.lastDraw < 0.1 { return nil }
            $0.lastDraw = now
            return $0
        }
        guard let snapshot else { return }
        let width = 24
        let overall = (Double(snapshot.scenarioIndex) + snapshot.fraction) / Double(max(scenarioCount, 1))
        let filled = min(width, Int(overall * Double(width)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let percent = Int(snapshot.fraction * 100)
        emit("\r\u{1B}[K[\(bar)] \(snapshot.scenarioIndex + 1)/\(scenarioCount) \(snapshot.scenarioName) · \(snapshot.caseName) \(percent)%")
    }

    private func clearLine() {
        emit("\r\u{1B}[K")
    }

    private func emit(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
