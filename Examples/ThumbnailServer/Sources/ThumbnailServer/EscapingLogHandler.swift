import Logging

/// A log handler that escapes every field of a record before another
/// handler writes it (``LogText``): the message, every metadata key and
/// value (the handler's own, the metadata provider's and the record's), and
/// an error's description. The server bootstraps its logging with it, so
/// Hummingbird's, the library's and its own lines are all escaped, by one
/// mechanism.
///
/// The wrapped handler is given no metadata provider and no error: this one
/// reads them, so that nothing reaches the output unescaped.
struct EscapingLogHandler: LogHandler {
    private var wrapped: any LogHandler

    /// Metadata set on this handler, escaped when a record is written.
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    /// Wraps `handler`, taking over its metadata provider.
    init(wrapping handler: any LogHandler) {
        var handler = handler
        metadataProvider = handler.metadataProvider
        metadata = handler.metadata
        handler.metadataProvider = nil
        handler.metadata = [:]
        wrapped = handler
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var escaped = event
        escaped.error = nil
        escaped.message = "\(LogText.escaped(event.message.description))"
        escaped.metadata = merged.isEmpty ? nil : Self.escaped(merged)
        wrapped.log(event: escaped)
    }

    private static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var result: Logger.Metadata = [:]
        for (key, value) in metadata { result[LogText.escaped(key)] = escaped(value) }
        return result
    }

    private static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(LogText.field(text))
        case .stringConvertible(let convertible): .string(LogText.field(convertible.description))
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let dictionary): .dictionary(escaped(dictionary))
        }
    }
}
