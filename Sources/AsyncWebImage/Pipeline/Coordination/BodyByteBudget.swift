import Foundation
import Synchronization
import AWILocking

/// Bounds the bytes of response bodies a loader's loads hold at once, from
/// the start of their download to the end of their decode and transform
/// (``ImageLoader/Configuration/bodyBudgetBytes``).
///
/// Why bytes and not loads: a loader under load holds one body per load that
/// has downloaded and waits for a CPU permit (decode, transform), and the
/// number of such loads is the number of requests in flight, not the number
/// of cores; the bodies' sizes differ by a factor of a hundred. A load
/// reserves before its download starts and waits, first in first out, while
/// the bodies held reach the budget; its charge follows its download (the
/// declared length as soon as the response head gives one, else the bytes
/// received) and is returned when the load's processing ends.
///
/// A download whose size is not known yet counts as the size bodies have
/// had lately (an average over the bodies released, starting at and never
/// above ``provisionalBytes(limit:)``, never below 16 KiB), so a burst of
/// loads cannot all start before any of them knows its size, yet loads of
/// small images are not held to a few at a time while each waits for its
/// response head from a slow origin. While fewer than ``minimumLoads``
/// loads hold a reservation a load always starts, whatever the bytes held:
/// the loader sets it to its CPU limiter's permits, so the budget never
/// leaves a core without a body to decode, and a body larger than the whole
/// budget still loads.
final class BodyByteBudget: Sendable {
    /// What a load holds: returned by ``reserve()``, given back to ``release(_:)``.
    struct Reservation: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct State {
        var held = 0
        var charges: [UInt64: Int] = [:]
        /// Reservations charged with a measured size (declared or received),
        /// whose release teaches ``estimate``.
        var measured: Set<UInt64> = []
        /// What an admitted download counts before its size is known.
        var estimate: Int
        var nextID: UInt64 = 0
        var waiters = WaiterQueue()

        func admits(limit: Int, minimumLoads: Int) -> Bool { charges.count < minimumLoads || held < limit }

        mutating func admit(_ id: UInt64) {
            charges[id] = estimate
            held += estimate
        }

        /// Moves the estimate a quarter of the way to a released body's
        /// size: recent bodies weigh most, one outlier moves it little.
        mutating func learn(bodyBytes: Int, range: ClosedRange<Int>) {
            estimate = min(max(estimate + (bodyBytes - estimate) / 4, range.lowerBound), range.upperBound)
        }

        /// Admits waiters in order while the budget allows; returns their continuations.
        mutating func admitWaiters(limit: Int, minimumLoads: Int) -> [WaiterQueue.Waiter] {
            var admitted: [WaiterQueue.Waiter] = []
            while admits(limit: limit, minimumLoads: minimumLoads), let oldest = waiters.popOldest() {
                admit(oldest.ticket)
                admitted.append(oldest.waiter)
            }
            return admitted
        }
    }

    /// The budget in bytes.
    let limit: Int
    /// Loads admitted whatever the bytes held, while fewer hold a reservation.
    let minimumLoads: Int
    /// The range of the provisional charge: at most its first value.
    private let estimateRange: ClosedRange<Int>
    private let state: Lock<State>

    /// What an admitted download counts before its size is known, before any
    /// body was released, and at most: 1 MiB, or the whole budget when it is
    /// smaller.
    static func provisionalBytes(limit: Int) -> Int { min(limit, 1 << 20) }

    /// Creates a budget of `limit` bytes (at least 1) that always admits
    /// `minimumLoads` loads (at least 1).
    init(limit: Int, minimumLoads: Int = 1) {
        self.limit = max(1, limit)
        self.minimumLoads = max(1, minimumLoads)
        let initial = Self.provisionalBytes(limit: self.limit)
        estimateRange = min(initial, 16 << 10)...initial
        state = Lock(State(estimate: initial))
    }

    /// Bytes charged now (bodies held plus provisional charges).
    var heldBytes: Int { state.withLock { $0.held } }
    /// Loads waiting to start their download now.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Reservations held now.
    var reservationCount: Int { state.withLock { $0.charges.count } }
    /// What a load admitted now counts until its size is known.
    var provisionalCharge: Int { state.withLock { $0.estimate } }

    /// Waits, first in first out, until the bodies held leave room, and
    /// reserves the provisional charge (``provisionalCharge``).
    ///
    /// - Throws: `CancellationError` when cancelled before admitted (it then holds nothing).
    func reserve() async throws -> Reservation {
        try Task.checkCancellation()
        let (id, admitted): (UInt64, Bool) = state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            if state.waiters.isEmpty && state.admits(limit: limit, minimumLoads: minimumLoads) {
                state.admit(id)
                return (id, true)
            }
            state.waiters.enter(id)
            return (id, false)
        }
        if admitted { return Reservation(id: id) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: WaiterQueue.Waiter) in
                state.withLock { state -> WaiterQueue.Settlement in
                    // Room made between entering the ticket and now, with nobody in line.
                    let roomIsFree = state.admits(limit: limit, minimumLoads: minimumLoads)
                    let settlement = state.waiters.settle(id, continuation, roomIsFree: roomIsFree)
                    if case .served = settlement { state.admit(id) }
                    return settlement
                }.finish(continuation)
            }
        } onCancel: {
            state.withLock { $0.waiters.cancel(id) }?.resume(throwing: CancellationError())
        }
        return Reservation(id: id)
    }

    /// Sets what `reservation` counts to `bytes` (its body's declared or
    /// received size); a smaller charge may let waiters start.
    func charge(_ reservation: Reservation, bytes: Int) {
        let admitted = state.withLock { state -> [WaiterQueue.Waiter] in
            guard let old = state.charges[reservation.id] else { return [] }
            state.measured.insert(reservation.id)
            // Progress repeats the declared length: nothing changed, nobody to admit.
            guard bytes != old else { return [] }
            state.charges[reservation.id] = bytes
            state.held += bytes - old
            return state.admitWaiters(limit: limit, minimumLoads: minimumLoads)
        }
        for waiter in admitted { waiter.resume() }
    }

    /// Gives back what `reservation` counts; call it once, when the load no
    /// longer holds its body.
    func release(_ reservation: Reservation) {
        let admitted = state.withLock { state -> [WaiterQueue.Waiter] in
            guard let old = state.charges.removeValue(forKey: reservation.id) else { return [] }
            state.held -= old
            // A load that never measured its body (a cache hit after all, a
            // 304, a failure before the head) says nothing about sizes.
            if state.measured.remove(reservation.id) != nil {
                state.learn(bodyBytes: old, range: estimateRange)
            }
            return state.admitWaiters(limit: limit, minimumLoads: minimumLoads)
        }
        for waiter in admitted { waiter.resume() }
    }
}
