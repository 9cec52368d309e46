import NIOCore

/// Matches replies to requests on one connection: replies arrive in the
/// order the commands went out (RESP has no request IDs), so a queue of
/// pending requests is all it takes.
///
/// Any error on the channel (a refused reply from ``RESPDecoder``, a TLS
/// failure, a reset) fails every pending request with a ``RedisFailure``
/// and closes the channel: the stream's position is then unknown, and a
/// connection is cheaper to replace than to resynchronise.
final class RedisChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = RedisReply
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        let promise: EventLoopPromise<[RedisReply]>
        var remaining: Int
        var replies: [RedisReply]
        /// The request's deadline timer, cancelled when its replies are in.
        let timeout: Scheduled<Void>
    }

    private var pending = CircularBuffer<Pending>(initialCapacity: 4)
    /// Set once the channel failed; later writes fail at once with it.
    private var failure: RedisFailure?
    /// Where the failure is kept for writes that come after the channel closed.
    private let closeReason: RedisCloseReason

    init(closeReason: RedisCloseReason) {
        self.closeReason = closeReason
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let failure {
            request.promise.fail(failure)
            promise?.fail(failure)
            return
        }
        // On the loop already: arming the timer needs no wake-up.
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let closeReason = self.closeReason
        let timeout = context.eventLoop.scheduleTask(deadline: request.deadline) {
            // A second completion of a promise is ignored: whichever of the
            // replies, the deadline and a cancellation comes first wins.
            request.promise.fail(RedisFailure.timedOut)
            closeReason.record(.timedOut)
            loopBound.value.close(promise: nil)
        }
        pending.append(Pending(promise: request.promise, remaining: request.replyCount, replies: [], timeout: timeout))
        context.write(wrapOutboundOut(request.payload), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = unwrapInboundIn(data)
        guard !pending.isEmpty else {
            fail(.protocolViolation("a reply nothing asked for"), context: context)
            return
        }
        pending[pending.startIndex].replies.append(reply)
        pending[pending.startIndex].remaining -= 1
        if pending[pending.startIndex].remaining == 0 {
            let done = pending.removeFirst()
            done.timeout.cancel()
            done.promise.succeed(done.replies)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Self.failure(for: error), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failPending(failure ?? .link("connection closed by the server"))
        context.fireChannelInactive()
    }

    private func fail(_ failure: RedisFailure, context: ChannelHandlerContext) {
        if self.failure == nil { self.failure = failure }
        closeReason.record(failure)
        failPending(self.failure ?? failure)
        context.close(promise: nil)
    }

    private func failPending(_ failure: RedisFailure) {
        if self.failure == nil { self.failure = failure }
        closeReason.record(failure)
        while let next = pending.popFirst() {
            next.timeout.cancel()
            next.promise.fail(failure)
        }
    }

    /// The failure an error on the channel stands for.
    static func failure(for error: any Error) -> RedisFailure {
        switch error {
        case let failure as RedisFailure:
            return failure
        case let refusal as RESPDecoder.Refusal:
            if case .bulkTooLarge(let count) = refusal { return .valueTooLarge(count) }
            return .protocolViolation(String(describing: refusal))
        case let decoderError as ByteToMessageDecoderError:
            return .protocolViolation(String(describing: decoderError))
        default:
            return .link(String(describing: error))
        }
    }
}
