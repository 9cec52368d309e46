import Foundation
import Logging
import AWILocking
import Synchronization

// The few helpers the Redis tests share with the core's tests, kept small
// here rather than a support target both test targets would depend on
// (the core's tests must not link NIO).

/// How many times slower than a normal build the code under test may run:
/// `AWI_TEST_TIME_SCALE` (set by `scripts/sanitize`), else 1. For bounds
/// that are themselves under test.
let testTimeScale: Int = {
    guard let text = ProcessInfo.processInfo.environment["AWI_TEST_TIME_SCALE"],
          let scale = Int(text), scale > 0 else { return 1 }
    return scale
}()

extension Duration {
    /// This bound stretched by ``testTimeScale`` (itself in a normal run).
    var scaled: Duration { self * testTimeScale }
}

/// Waits until `condition` holds, checking at most `attempts` times about a
/// millisecond apart (bounded in count and time), and returns whether it did.
func eventually(attempts: Int = 5000, _ condition: () async throws -> Bool) async rethrows -> Bool {
    for _ in 0..<attempts {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return try await condition()
}

/// A log handler's store that records every line.
final class RecordingLogHandlerStore: Sendable {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }
    private let storage = Lock<[Line]>([])

    var lines: [Line] { storage.withLock { $0 } }
    func append(_ line: Line) { storage.withLock { $0.append(line) } }

    /// A logger writing here at `level`.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in RecordingLogHandler(store: self) }
        logger.logLevel = level
        return logger
    }

    /// The lines whose message is `message`.
    func lines(_ message: String) -> [Line] { lines.filter { $0.message == message } }
}

/// Writes each line to a ``RecordingLogHandlerStore``.
struct RecordingLogHandler: LogHandler {
    let store: RecordingLogHandlerStore
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        for (key, value) in event.metadata ?? [:] { all[key] = value }
        store.append(.init(level: event.level, message: event.message.description, metadata: all.mapValues { "\($0)" }))
    }
}

/// This process's resident set now and at its peak since the last
/// ``resetPeak()``, from `/proc/self/status` (bytes).
enum ResidentMemory {
    static var current: Int { field("VmRSS:") }
    static var peak: Int { field("VmHWM:") }

    /// Resets the peak to the current resident set (`/proc/self/clear_refs`, 5).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return (digits.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }
}
