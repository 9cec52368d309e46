import Synchronization
import AWILocking

/// The store's ``RedisStore/Statistics``, shared by the store and its nodes.
final class RedisCounters: Sendable {
    private let state = Lock(RedisStore.Statistics())

    /// Changes the counts under the lock.
    func update(_ body: (inout RedisStore.Statistics) -> Void) {
        state.withLock { body(&$0) }
    }

    /// The counts so far.
    var snapshot: RedisStore.Statistics {
        state.withLock { $0 }
    }
}
