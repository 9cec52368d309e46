import NIOCore
import NIOPosix

/// One connection to one Redis node, on the store's event loop.
///
/// Used by one caller at a time (its node's pool hands it out); every call
/// has a deadline that covers all of it, and cancellation reaches it: when
/// either ends the call, the connection is closed (the reply still owed
/// would leave the stream out of step), and the caller gets
/// ``RedisFailure/timedOut`` or ``RedisFailure/cancelled`` at once.
final class RedisConnection: Sendable {
    /// How the store's connections are set up; one per store.
    struct Settings: Sendable {
        /// TLS, when the nodes speak it.
        let tls: RedisTLSContext?
        /// The name the node's certificate must carry (and SNI); `nil` to
        /// check the endpoint's host (a DNS name, or an IP address against
        /// the certificate's IP entries).
        let serverName: String?
        /// `AUTH` arguments (`[user,] password`), already as bytes; empty for none.
        let authArguments: [[UInt8]]
        /// The database `SELECT`ed; 0 needs no command.
        let database: Int
        /// Whether to send `READONLY` (reads from cluster replicas).
        let readOnly: Bool
        /// The longest reply accepted (``RESPDecoder/maxBulkBytes``).
        let maxReplyBytes: Int
        /// The longest a TCP (or Unix socket) connect may take, within the deadline.
        let connectTimeout: Duration
    }

    let channel: any Channel
    /// Why the channel failed, for commands written after it closed.
    private let closeReason: RedisCloseReason

    private init(channel: any Channel, closeReason: RedisCloseReason) {
        self.channel = channel
        self.closeReason = closeReason
    }

    /// Whether the connection can take another command.
    var isUsable: Bool { channel.isActive }

    /// Connects, handshakes (TLS), authenticates and selects the database,
    /// all before `deadline`.
    ///
    /// - Throws: ``RedisFailure``: `.unreachable`, `.timedOut`, `.tls`,
    ///   `.authentication` (a wrong password or user), `.setup`.
    static func connect(
        to endpoint: RedisStore.Endpoint, settings: Settings, eventLoop: any EventLoop, deadline: NIODeadline
    ) async throws(RedisFailure) -> RedisConnection {
        let remaining = deadline - .now()
        guard remaining > .zero else { throw .timedOut }
        let connectTimeout = min(remaining, TimeAmount(settings.connectTimeout))
        // The name the certificate must carry, else the IP address it must list.
        let serverName = settings.serverName ?? (endpoint.isHostName ? endpoint.host : nil)
        let ipAddress = serverName == nil && endpoint.unixSocketPath == nil ? endpoint.host : nil
        let closeReason = RedisCloseReason()
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: endpoint.unixSocketPath == nil ? 1 : 0)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls = settings.tls {
                        try pipeline.addHandler(RedisTLSHandler(context: tls, serverName: serverName, ipAddress: ipAddress))
                    }
                    try pipeline.addHandler(ByteToMessageHandler(RESPDecoder(maxBulkBytes: settings.maxReplyBytes)))
                    try pipeline.addHandler(RedisChannelHandler(closeReason: closeReason))
                }
            }
        let connecting: EventLoopFuture<any Channel> = if let path = endpoint.unixSocketPath {
            bootstrap.connect(unixDomainSocketPath: path)
        } else {
            bootstrap.connect(host: endpoint.host, port: endpoint.port)
        }
        // Cancellation ends the wait at once; a channel that connects
        // after that is closed as it arrives.
        let waited = eventLoop.makePromise(of: (any Channel).self)
        waited.futureResult.whenFailure { _ in connecting.whenSuccess { $0.close(promise: nil) } }
        connecting.cascade(to: waited)
        let channel: any Channel
        do {
            channel = try await withTaskCancellationHandler {
                try await waited.futureResult.get()
            } onCancel: {
                waited.fail(RedisFailure.cancelled)
            }
        } catch let failure as RedisFailure {
            throw closeReason.failure ?? failure
        } catch let error as ChannelError {
            if case .connectTimeout = error { throw .timedOut }
            throw .unreachable(String(describing: error))
        } catch {
            throw .unreachable(String(describing: error))
        }
        let connection = RedisConnection(channel: channel, closeReason: closeReason)
        var setup: [[[UInt8]]] = []
        if !settings.authArguments.isEmpty { setup.append([Array("AUTH".utf8)] + settings.authArguments) }
        if settings.database != 0 { setup.append([Array("SELECT".utf8), Array(String(settings.database).utf8)]) }
        if settings.readOnly { setup.append([Array("READONLY".utf8)]) }
        // A TLS handshake happens on the first write: make one even with
        // nothing to set up, so a bad certificate fails here, not later.
        if setup.isEmpty && settings.tls != nil { setup.append([Array("PING".utf8)]) }
        guard !setup.isEmpty else { return connection }
        let replies = try await connection.send(setup, deadline: deadline)
        for (index, reply) in replies.enumerated() {
            guard case .error(let message) = reply else { continue }
            connection.close()
            if index == 0 && !settings.authArguments.isEmpty { throw .authentication(RedisAuthenticationRefusal(reply: message)) }
            throw .setup(message)
        }
        return connection
    }

    /// Sends `commands` in one write and returns their replies in order (a
    /// refused command is a ``RedisReply/error(_:)`` among them).
    ///
    /// - Throws: ``RedisFailure`` when the deadline passes, the caller is
    ///   cancelled, or the link fails; the connection is closed then.
    func send(_ commands: [[[UInt8]]], deadline: NIODeadline) async throws(RedisFailure) -> [RedisReply] {
        let channel = self.channel
        let promise = channel.eventLoop.makePromise(of: [RedisReply].self)
        var payload = channel.allocator.buffer(capacity: RESPCommand.encodedCount(commands))
        for command in commands { RESPCommand.write(command, to: &payload) }
        // A write that cannot go out (the channel closed under it: a TLS
        // handshake refused before this first command) fails the command
        // with the channel's recorded reason.
        let written = channel.eventLoop.makePromise(of: Void.self)
        let closeReason = self.closeReason
        written.futureResult.whenFailure { error in
            promise.fail(closeReason.failure ?? RedisChannelHandler.failure(for: error))
        }
        channel.writeAndFlush(RedisRequest(payload: payload, replyCount: commands.count, promise: promise, deadline: deadline), promise: written)
        do {
            let replies = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                promise.fail(RedisFailure.cancelled)
                channel.close(promise: nil)
            }
            return replies
        } catch {
            channel.close(promise: nil)
            let failure = RedisChannelHandler.failure(for: error)
            // A link failure seen first as a closed channel: report its cause.
            if case .link = failure, let cause = closeReason.failure { throw cause }
            throw failure
        }
    }

    /// Closes the connection (what is pending fails).
    func close() {
        channel.close(promise: nil)
    }
}
