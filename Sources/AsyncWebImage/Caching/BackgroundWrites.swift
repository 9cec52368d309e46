import AWILocking
import Synchronization

/// Counts a cache's disk writes that nobody awaits (background stores,
/// disk fills from the shared tier), so that ``ImageCache/shutdown()`` can
/// wait for the ones in flight instead of cutting a file short.
///
/// Shared by every copy of a cache (``ImageCache/with(coders:)``): they
/// write to the same tiers.
final class BackgroundWrites: Sendable {
    private struct State {
        var inFlight = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Lock(State())

    /// One write starts.
    func begin() {
        state.withLock { $0.inFlight += 1 }
    }

    /// One write ended (whatever its result); wakes the waiters at zero.
    func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Writes in flight now.
    var count: Int { state.withLock { $0.inFlight } }

    /// Returns once no write is in flight.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.inFlight > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
