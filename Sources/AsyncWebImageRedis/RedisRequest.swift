import NIOCore

/// What a ``RedisConnection`` hands its channel: commands already encoded,
/// how many replies they produce, and the promise their replies complete.
struct RedisRequest: Sendable {
    /// The commands, in RESP.
    let payload: ByteBuffer
    /// Replies expected (one per command).
    let replyCount: Int
    /// Completed with the replies in order, or failed with a ``RedisFailure``.
    let promise: EventLoopPromise<[RedisReply]>
    /// When the request fails with ``RedisFailure/timedOut`` and the
    /// connection closes, if its replies have not all come. The handler
    /// arms and disarms the timer on the event loop itself, so a command
    /// costs the loop one wake-up (its write), not three.
    let deadline: NIODeadline
}
