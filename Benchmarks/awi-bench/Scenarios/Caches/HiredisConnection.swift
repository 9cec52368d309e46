import CHiredis
import Glibc

/// One synchronous hiredis connection to one Redis node: the client the
/// shared tier had before issue 29 (`RedisConnection` of the library then),
/// kept here only as the shared-tier scenario's baseline.
///
/// Blocking: every call waits for the node, bounded by the connect and
/// per-read timeouts (no total deadline). Callers run it on
/// a dedicated thread (`DedicatedThreadPool`), as the library did.
final class HiredisConnection {
    /// Why a call failed: the link (refused, reset, timed out, a reply
    /// hiredis could not parse). The connection is unusable afterwards.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    private let context: UnsafeMutablePointer<redisContext>
    /// Whether the connection failed and must be dropped, not reused.
    private(set) var isBroken = false

    /// Connects to `host:port` within `connectTimeout`; commands then time
    /// out after `commandTimeout`.
    ///
    /// - Throws: ``Failure`` when the node cannot be reached in time.
    init(host: String, port: Int, connectTimeout: Duration, commandTimeout: Duration) throws(Failure) {
        guard let context = redisConnectWithTimeout(host, Int32(port), Self.timeval(connectTimeout)) else {
            throw Failure(description: "cannot allocate a Redis context")
        }
        if context.pointee.err != 0 {
            let message = String(cString: CHiredis_errstr(context))
            redisFree(context)
            throw Failure(description: "connect \(host):\(port): \(message)")
        }
        guard redisSetTimeout(context, Self.timeval(commandTimeout)) == REDIS_OK else {
            let message = String(cString: CHiredis_errstr(context))
            redisFree(context)
            throw Failure(description: "set timeout on \(host):\(port): \(message)")
        }
        self.context = context
    }

    deinit {
        redisFree(context)
    }

    /// Sends one command and waits for its reply: the bytes of a bulk
    /// string reply (copied out of hiredis's reply object, as the library
    /// did), `nil` for any other reply.
    ///
    /// - Throws: ``Failure`` when the link fails.
    func command(_ arguments: [[UInt8]]) throws(Failure) -> [UInt8]? {
        try pipeline([arguments])[0]
    }

    /// Sends every command, then reads every reply: one round trip for all.
    ///
    /// - Throws: ``Failure`` when the link fails.
    func pipeline(_ commands: [[[UInt8]]]) throws(Failure) -> [[UInt8]?] {
        guard !isBroken else { throw Failure(description: "connection already failed") }
        for arguments in commands {
            let status = Self.withArgv(arguments) { count, argv, lengths in
                redisAppendCommandArgv(context, count, argv, lengths)
            }
            guard status == REDIS_OK else { throw fail() }
        }
        var replies: [[UInt8]?] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw fail() }
            let reply = raw.assumingMemoryBound(to: redisReply.self).pointee
            if reply.type == CHiredis_REPLY_STRING, let pointer = reply.str {
                replies.append(Array(UnsafeRawBufferPointer(start: pointer, count: reply.len)))
            } else {
                replies.append(reply.type == CHiredis_REPLY_STRING ? [] : nil)
            }
            freeReplyObject(raw)
        }
        return replies
    }

    private func fail() -> Failure {
        isBroken = true
        return Failure(description: String(cString: CHiredis_errstr(context)))
    }

    /// Lays the arguments out as hiredis's `argv`/`argvlen` pair, all in
    /// one buffer so any number of arguments needs one allocation.
    private static func withArgv<Result>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        var joined: [UInt8] = []
        joined.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(joined.count)
            lengths.append(argument.count)
            joined.append(contentsOf: argument)
        }
        joined.append(0)
        return joined.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            var argv: [UnsafePointer<CChar>?] = offsets.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            return argv.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { lengths in
                    body(Int32(arguments.count), argv.baseAddress!, lengths.baseAddress!)
                }
            }
        }
    }

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let (seconds, attoseconds) = duration.components
        return Glibc.timeval(tv_sec: Int(max(0, seconds)), tv_usec: Int(max(0, attoseconds) / 1_000_000_000_000))
    }
}

// Safe: a connection is used by one thread at a time: the benchmark hands
// each one to a single pool job at a time (see SharedTierScenario), and
// hiredis keeps no thread-local or global state per context.
extension HiredisConnection: @unchecked Sendable {}
