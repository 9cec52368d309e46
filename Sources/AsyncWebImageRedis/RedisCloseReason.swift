import Synchronization
import AWILocking

/// Why a connection's channel failed, kept where a command written after
/// the failure can read it: once the channel has closed, its handlers are
/// gone, and a later write fails with a bare "closed channel" that would
/// hide the cause (a certificate refused during the handshake, which runs
/// before the first command).
final class RedisCloseReason: Sendable {
    private let reason = Lock<RedisFailure?>(nil)

    /// The first failure recorded, if any.
    var failure: RedisFailure? { reason.withLock { $0 } }

    /// Records `failure` unless one is recorded already.
    func record(_ failure: RedisFailure) {
        reason.withLock { if $0 == nil { $0 = failure } }
    }
}
