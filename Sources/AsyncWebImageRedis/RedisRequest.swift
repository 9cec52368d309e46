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
}
