import AWILocking
import Foundation
import Synchronization

/// A `Clock` the test moves by hand: `sleep(until:)` returns once
/// ``advance(by:)`` has moved ``now`` to the deadline, or throws
/// `CancellationError` when the sleeping task is cancelled, as the system
/// clocks do.
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var sleepCalls = 0
    }

    private let state = Lock(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    /// Sleeps waiting for the clock now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }
    /// The earliest deadline a sleeper waits for.
    var nextDeadline: Instant? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.sleepCalls += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            try Task.checkCancellation()
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Waits (yielding, at most `attempts` times) until a task sleeps on the clock.
    func waitForSleeper(attempts: Int = 50_000) async -> Bool {
        for _ in 0..<attempts {
            if sleeperCount > 0 { return true }
            try? await Task.sleep(for: .microseconds(100))
        }
        return false
    }
}
