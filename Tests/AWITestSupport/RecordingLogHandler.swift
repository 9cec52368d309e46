import AWILocking
public import Logging
import Synchronization

/// A log handler that records every line at or above `logLevel`.
public final class RecordingLogHandlerStore: Sendable {
    /// One logged line.
    public struct Line: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }
    private let storage = Lock<[Line]>([])

    /// An empty store.
    public init() {}

    /// Every line so far, in order.
    public var lines: [Line] { storage.withLock { $0 } }
    public func append(_ line: Line) { storage.withLock { $0.append(line) } }

    /// A logger writing here at `level`.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in RecordingLogHandler(store: self) }
        logger.logLevel = level
        return logger
    }

    /// The lines whose message is `message`.
    public func lines(_ message: String) -> [Line] { lines.filter { $0.message == message } }
}

/// Writes each line to a ``RecordingLogHandlerStore``.
public struct RecordingLogHandler: LogHandler {
    public let store: RecordingLogHandlerStore
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(store: RecordingLogHandlerStore) { self.store = store }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        for (key, value) in event.metadata ?? [:] { all[key] = value }
        store.append(.init(level: event.level, message: event.message.description, metadata: all.mapValues { "\($0)" }))
    }
}
