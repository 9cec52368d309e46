import Metrics
import NIOConcurrencyHelpers

/// The result cache's background writes (to the disk and the fleet's
/// Redis), bounded in number: at most ``maxInFlight`` run at once and at most
/// ``maxQueued`` wait; a write that finds the queue full is dropped and
/// counted (`thumbnail_result_cache_dropped_writes_total`). Dropping is
/// right for a cache: the response is already on its way, and a missing
/// entry is only a later miss, whereas a task per write would let a burst of
/// distinct requests against a slow disk or Redis pile up without a bound.
///
/// Workers are tasks started on demand, never more than ``maxInFlight``;
/// each takes queued writes until none is left, so an idle queue holds no task.
final class ResultWriteQueue: Sendable {
    /// What the queue has done so far.
    struct Statistics: Sendable, Equatable {
        /// Writes started (each then ran to its end).
        var started = 0
        /// Writes finished.
        var finished = 0
        /// Writes refused because the queue was full.
        var dropped = 0
        /// Writes running now.
        var inFlight = 0
        /// Writes waiting now.
        var queued = 0
        /// The most writes that ever ran at once.
        var peakInFlight = 0
    }

    private struct State {
        var statistics = Statistics()
        var pending: [@Sendable () async -> Void] = []
        var head = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The most writes running at once.
    let maxInFlight: Int
    /// The most writes waiting for a worker.
    let maxQueued: Int
    private let state = NIOLockedValueBox(State())
    private let droppedCounter = Counter(label: "thumbnail_result_cache_dropped_writes_total")
    private let finishedCounter = Counter(label: "thumbnail_result_cache_writes_total")
    private let peakGauge = Gauge(label: "thumbnail_result_cache_writes_in_flight_peak")

    /// Creates a queue running at most `maxInFlight` writes (at least 1) with
    /// at most `maxQueued` (at least 0) waiting.
    init(maxInFlight: Int, maxQueued: Int) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxQueued = max(0, maxQueued)
    }

    /// A snapshot of the counts.
    var statistics: Statistics { state.withLockedValue { $0.statistics } }

    /// Runs `write` in the background when a worker is free, or queues it;
    /// drops it (and counts it) when the queue is full.
    ///
    /// - Returns: Whether the write was accepted.
    @discardableResult
    func submit(_ write: @escaping @Sendable () async -> Void) -> Bool {
        enum Verdict { case start, queued, dropped }
        let (verdict, peak): (Verdict, Int) = state.withLockedValue { state in
            if state.statistics.inFlight < maxInFlight {
                state.statistics.inFlight += 1
                state.statistics.started += 1
                let raised = state.statistics.inFlight > state.statistics.peakInFlight
                state.statistics.peakInFlight = max(state.statistics.peakInFlight, state.statistics.inFlight)
                return (.start, raised ? state.statistics.peakInFlight : 0)
            }
            if state.pending.count - state.head < maxQueued {
                state.pending.append(write)
                state.statistics.queued += 1
                return (.queued, 0)
            }
            state.statistics.dropped += 1
            return (.dropped, 0)
        }
        if peak > 0 { peakGauge.record(peak) }
        switch verdict {
        case .start:
            Task.detached { await self.work(first: write) }
            return true
        case .queued:
            return true
        case .dropped:
            droppedCounter.increment()
            return false
        }
    }

    /// Returns once no write runs or waits (bounded by the writes' own timeouts).
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLockedValue { state in
                guard state.statistics.inFlight > 0 || state.statistics.queued > 0 else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// A worker: runs `first`, then queued writes until none is left.
    private func work(first: @escaping @Sendable () async -> Void) async {
        var next: (@Sendable () async -> Void)? = first
        while let write = next {
            await write()
            finishedCounter.increment()
            let (following, waiters): ((@Sendable () async -> Void)?, [CheckedContinuation<Void, Never>]) = state.withLockedValue { state in
                state.statistics.finished += 1
                if state.head < state.pending.count {
                    let write = state.pending[state.head]
                    state.head += 1
                    if state.head == state.pending.count {
                        state.pending.removeAll(keepingCapacity: true)
                        state.head = 0
                    } else if state.head > 64 && state.head * 2 > state.pending.count {
                        // A queue that never empties stays within twice its live writes.
                        state.pending.removeFirst(state.head)
                        state.head = 0
                    }
                    state.statistics.queued -= 1
                    state.statistics.started += 1
                    return (write, [])
                }
                state.statistics.inFlight -= 1
                guard state.statistics.inFlight == 0 else { return (nil, []) }
                defer { state.idleWaiters.removeAll() }
                return (nil, state.idleWaiters)
            }
            for waiter in waiters { waiter.resume() }
            next = following
        }
    }
}
