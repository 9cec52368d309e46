import CHiredis

/// A Redis reply, copied out of hiredis's reply object.
enum RedisReply: Sendable, Equatable {
    /// A bulk string (a value).
    case bulk([UInt8])
    /// A status line such as `OK`.
    case status(String)
    /// An integer.
    case integer(Int64)
    /// The null bulk string: no such key, or a `SET … NX` that did not set.
    case null
    /// An error the server returned (the command was wrong, not the link).
    case error(String)
    /// An array of replies.
    case array([RedisReply])

    /// Copies hiredis's reply, recursively.
    init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case CHiredis_REPLY_STRING:
            self = .bulk(Self.bytes(value.str, value.len))
        case CHiredis_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(value.str, value.len), as: UTF8.self))
        case CHiredis_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, value.len), as: UTF8.self))
        case CHiredis_REPLY_INTEGER:
            self = .integer(Int64(value.integer))
        case CHiredis_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                if let element = value.element[index] {
                    elements.append(RedisReply(element))
                } else {
                    elements.append(.null)
                }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
