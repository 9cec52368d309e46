import NIOCore

/// Reads RESP2 replies off a connection, refusing a reply whose declared
/// size is over its bounds *before* buffering it.
///
/// Why bounds at the header: a bulk string announces its length
/// (`$268435456\r\n`) before its bytes, so a value over
/// ``RedisStore/Configuration/maxValueBytes`` is refused when its first
/// bytes arrive, and never sits in memory; the connection is then closed
/// (Redis drops what it had queued for it). Hiredis buffered the whole
/// reply first: one 256 MiB value cost 768 MiB of RSS per read (issue 29).
/// Arrays, lines and nesting are bounded the same way, so no reply a server
/// (or something posing as one) sends can make the client allocate more
/// than the bounds allow.
///
/// A reply is parsed from the start each time bytes arrive until it is
/// whole; for a large bulk string that is one header parse and one length
/// check per read, not a rescan of its bytes.
struct RESPDecoder: NIOSingleStepByteToMessageDecoder {
    typealias InboundOut = RedisReply

    /// Why a reply was refused. The connection cannot be used afterwards.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        /// A bulk string longer than the bound (its declared length).
        case bulkTooLarge(Int)
        /// An array with more elements than the bound, or nested too deeply.
        case arrayTooLarge(Int)
        /// A status, error or integer line longer than the bound.
        case lineTooLong
        /// Bytes that are not RESP2.
        case malformed(String)

        /// What is wrong with the reply, in words (the text of a protocol-violation error).
        var description: String {
            switch self {
            case .bulkTooLarge(let count): "a bulk string of \(count) bytes, over the bound"
            case .arrayTooLarge(let count): "an array of \(count) elements, or nested too deeply"
            case .lineTooLong: "a reply line over the bound"
            case .malformed(let what): "not RESP: \(what)"
            }
        }
    }

    /// The longest bulk string accepted, in bytes.
    let maxBulkBytes: Int
    /// The most elements in one array (all levels together count separately).
    var maxArrayCount = 1 << 20
    /// The longest status, error or integer line, in bytes.
    var maxLineBytes = 64 << 10
    /// The deepest nesting of arrays (`CLUSTER SHARDS` needs 4).
    var maxDepth = 8

    init(maxBulkBytes: Int) {
        self.maxBulkBytes = maxBulkBytes
    }

    mutating func decode(buffer: inout ByteBuffer) throws -> RedisReply? {
        var view = buffer
        guard let reply = try parse(&view, depth: 0) else { return nil }
        buffer = view
        return reply
    }

    mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> RedisReply? {
        try decode(buffer: &buffer)
    }

    /// One reply from the front of `buffer`, moving its reader index past
    /// it; `nil` (and `buffer` in an unspecified state) when it is not whole yet.
    private func parse(_ buffer: inout ByteBuffer, depth: Int) throws -> RedisReply? {
        guard let kind = buffer.readInteger(as: UInt8.self) else { return nil }
        guard let line = try readLine(&buffer) else { return nil }
        switch kind {
        case UInt8(ascii: "+"):
            return .status(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"):
            return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"):
            return .integer(try Self.integer(line))
        case UInt8(ascii: "$"):
            let length = try Self.integer(line)
            if length == -1 { return .null }
            guard length >= 0 else { throw Refusal.malformed("bulk length \(length)") }
            guard length <= maxBulkBytes else { throw Refusal.bulkTooLarge(Int(clamping: length)) }
            let count = Int(length)
            guard buffer.readableBytes >= count + 2 else { return nil }
            let bytes = buffer.readSlice(length: count)!
            guard buffer.readInteger(as: UInt16.self) == 0x0D0A else { throw Refusal.malformed("bulk string without CRLF") }
            return .bulk(bytes)
        case UInt8(ascii: "*"):
            let count = try Self.integer(line)
            if count == -1 { return .null }
            guard count >= 0 else { throw Refusal.malformed("array length \(count)") }
            guard count <= maxArrayCount, depth < maxDepth else { throw Refusal.arrayTooLarge(Int(clamping: count)) }
            var elements: [RedisReply] = []
            elements.reserveCapacity(min(Int(count), 1024))
            for _ in 0..<count {
                guard let element = try parse(&buffer, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        default:
            throw Refusal.malformed("reply type byte \(kind)")
        }
    }

    /// The bytes up to the next CRLF (consumed with it); `nil` when it has not arrived.
    private func readLine(_ buffer: inout ByteBuffer) throws -> ByteBufferView? {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\r")) else {
            if view.count > maxLineBytes { throw Refusal.lineTooLong }
            return nil
        }
        guard end - view.startIndex <= maxLineBytes else { throw Refusal.lineTooLong }
        guard end + 1 < view.endIndex else { return nil }
        guard view[end + 1] == UInt8(ascii: "\n") else { throw Refusal.malformed("CR without LF") }
        let line = view[view.startIndex..<end]
        buffer.moveReaderIndex(forwardBy: line.count + 2)
        return line
    }

    /// A decimal integer line, sign allowed (parsed in place: every reply
    /// header goes through here).
    private static func integer(_ line: ByteBufferView) throws -> Int64 {
        var index = line.startIndex
        var negative = false
        if index < line.endIndex, line[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < line.endIndex, line.endIndex - index <= 19 else { throw Refusal.malformed("not an integer") }
        var value: Int64 = 0
        while index < line.endIndex {
            let digit = line[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw Refusal.malformed("not an integer") }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = scaled.addingReportingOverflow(Int64(digit))
            guard !overflow, !overflowSum else { throw Refusal.malformed("integer out of range") }
            value = sum
            index += 1
        }
        return negative ? -value : value
    }
}
