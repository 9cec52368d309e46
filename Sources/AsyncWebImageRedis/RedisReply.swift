import NIOCore

/// One RESP2 reply, as ``RESPDecoder`` read it.
///
/// A bulk string keeps the bytes in the `ByteBuffer` they arrived in (a
/// slice of the decoder's buffer, no copy); the entry parser copies the
/// image out of it once.
enum RedisReply: Sendable, Equatable {
    /// A bulk string (a value).
    case bulk(ByteBuffer)
    /// A status line such as `OK`.
    case status(String)
    /// An integer.
    case integer(Int64)
    /// The null bulk string or array: no such key, or a `SET … NX` that did not set.
    case null
    /// An error the server returned (the command was wrong, not the link).
    case error(String)
    /// An array of replies.
    case array([RedisReply])

    /// Whether the server refused the command.
    var isError: Bool {
        if case .error = self { true } else { false }
    }

    /// The bytes of a bulk string, `nil` for any other reply.
    var bulkBytes: [UInt8]? {
        if case .bulk(let buffer) = self { Array(buffer.readableBytesView) } else { nil }
    }

    /// The text of a bulk string or a status line, `nil` for any other reply.
    var text: String? {
        switch self {
        case .bulk(let buffer): String(buffer: buffer)
        case .status(let text): text
        default: nil
        }
    }
}
