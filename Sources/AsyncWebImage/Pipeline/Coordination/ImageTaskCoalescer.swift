import Synchronization
import AWILocking

/// The second level of coalescing: one piece of work (disk read or
/// download, then decode and transform) per distinct result, shared by every
/// caller that asks for that result while it runs.
///
/// A keyed task map in the style of Nuke's `TaskPool`: an entry holds the
/// subscribers' channels and the work's task; it leaves the map when the
/// work finishes, and the work is cancelled when its last subscriber leaves.
/// A `Mutex` rather than an actor guards the map: every operation is a few
/// dictionary updates, and the hot path (a thousand callers joining one
/// load) must not queue behind actor hops. No user code and no I/O ever runs
/// under the lock; channels are fed after it is released.
final class ImageTaskCoalescer: Sendable {
    typealias Key = ImageRequestKeys.TaskKey

    /// What a piece of work uses to talk to its subscribers.
    struct Handle: Sendable {
        let coalescer: ImageTaskCoalescer
        let key: Key
        let generation: UInt64

        /// Whether any current subscriber wants previews.
        var wantsPreviews: Bool { coalescer.wantsPreviews(self) }

        /// Sends progress to every subscriber (late joiners get the last one).
        func progress(received: Int64, expected: Int64?) {
            coalescer.broadcast(self, .progress(received: received, expected: expected))
        }

        /// Sends a preview to the subscribers that want previews.
        func preview(_ image: Image) {
            coalescer.broadcast(self, .preview(image))
        }

        /// Ends the work: every subscriber gets `response` (if any) and the end.
        func finish(_ result: Result<LoadResult?, any Error>) {
            coalescer.finish(self, result)
        }
    }

    /// Where a subscriber's events go: a channel (the event streams, and
    /// the first caller of `image(_:)`), or, for `image(_:)` callers that
    /// join work already running, a bare continuation that receives only
    /// the final response — no channel, no termination closure.
    enum Sink {
        case channel(ImageEventChannel)
        case waiter(UnsafeContinuation<JoinResult, any Error>)
    }

    /// The table, its transitions in ``ImageTaskCoalescerStateMachine``.
    private typealias Table = ImageTaskCoalescerStateMachine<Key, Sink, Task<Void, Never>>

    private struct State {
        var table = Table()
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    /// Whether work for `resultKey` runs (for any request variant): then
    /// the result cannot be in memory yet, and a memory lookup is wasted.
    func isInFlight(resultKey: String) -> Bool {
        // An idle loader answers without the lock or hashing the key.
        guard entryCount.load(ordering: .relaxed) > 0 else { return false }
        return state.withLock { $0.table.inFlightResults[resultKey] != nil }
    }

    /// Mirrors `entries.count` for ``isInFlight(resultKey:)``'s shortcut.
    /// Relaxed: a stale zero only costs one memory lookup that misses.
    private let entryCount = Atomic<Int>(0)
    /// Ids of ``awaitResult(_:)`` subscribers.
    private let waiterIDs = Atomic<UInt64>(0)

    init() {}

    /// How many distinct pieces of work are running.
    var count: Int { state.withLock { $0.table.entries.count } }

    /// How many subscribers wait on running work, and how many of them
    /// wait without a channel (``awaitResult(_:)``), for tests.
    var subscriberCounts: (all: Int, waiters: Int) {
        state.withLock { state in
            state.table.entries.values.reduce(into: (all: 0, waiters: 0)) { counts, entry in
                counts.all += entry.subscribers.count
                counts.waiters += entry.subscribers.values.count { if case .waiter = $0.sink { true } else { false } }
            }
        }
    }

    /// How many pieces of work were ever started (joins do not count).
    var started: Int { state.withLock { $0.table.started } }

    /// Subscribes `channel` to the work for `key`, starting it with `work` if
    /// none runs. The channel is unsubscribed when its consumer goes away.
    /// - Returns: Whether the subscriber joined work already in flight.
    @discardableResult
    func subscribe(
        _ key: Key,
        channel: ImageEventChannel,
        wantsPreviews: Bool,
        wantsProgress: Bool = true,
        workPriority: TaskPriority? = nil,
        work: @escaping @Sendable (Handle) async -> Void
    ) -> Bool {
        let (action, subscriberID) = state.withLock { state -> (Table.SubscribeAction, UInt64) in
            state.nextID &+= 1
            let id = state.nextID
            let action = state.table.subscribe(
                key, resultKey: key.resultKey, id: id, sink: .channel(channel),
                wantsPreviews: wantsPreviews, wantsProgress: wantsProgress
            )
            entryCount.store(state.table.entries.count, ordering: .relaxed)
            return (action, id)
        }
        // Priority follows the task: a consumer escalated while it waits
        // promotes the shared work, whose download promotes its transfer.
        channel.onEscalation { [weak self] priority in self?.escalate(key, to: priority) }
        switch action {
        case .joined(let progress, let preview):
            if let progress { channel.send(progress) }
            if let preview { channel.send(.preview(preview)) }
            channel.onTermination { [weak self] in self?.leave(key, subscriber: subscriberID) }
            return true
        case .start(let generation):
            let handle = Handle(coalescer: self, key: key, generation: generation)
            channel.onTermination { [weak self] in self?.leave(key, subscriber: subscriberID) }
            let task = Task(priority: workPriority) { await work(handle) }
            let record = state.withLock { $0.table.record(task, for: key, generation: generation) }
            if case .cancel = record { task.cancel() }
            return false
        }
    }

    /// Raises the priority of the work running for `key` (a subscriber's
    /// task was escalated while it waited): the work's task, and through the
    /// download coalescer's own escalation handler its transfer, follow.
    func escalate(_ key: Key, to priority: TaskPriority) {
        let task = state.withLock { $0.table.entries[key]?.work }
        task?.escalatePriority(to: priority)
    }

    /// Cancels the work of every entry (``ImageLoader/shutdown()``).
    /// - Returns: The tasks cancelled, for the caller to wait for.
    func cancelAll() -> [Task<Void, Never>] {
        let tasks = state.withLock { state in state.table.entries.values.compactMap(\.work) }
        for task in tasks { task.cancel() }
        return tasks
    }

    /// Waits for the final response of the work running for `key`, without
    /// a channel: how an `image(_:)` call joins a load already in flight.
    ///
    /// - Returns: `.notRunning` when no work runs for `key` (the caller
    ///   takes the full path), else the work's response (`nil` only for a
    ///   revalidation that found the cached image current).
    /// - Throws: The work's error, or `CancellationError` when the calling
    ///   task is cancelled (the work is cancelled when nobody else waits).
    func awaitResult(_ key: Key) async throws -> JoinResult {
        // From a counter of its own (top bit set, so never a channel
        // subscriber's id): one lock less on the hot mutex per join.
        let id = waiterIDs.wrappingAdd(1, ordering: .relaxed).newValue | 1 << 63
        // The continuation is resumed exactly once, by whoever takes its
        // subscriber out of the table under the lock: `finish`, `leave`
        // (from the cancellation handler), or the registration itself.
        defer { state.observeHandOff() }
        return try await withTaskPriorityEscalationHandler {
            // A waiter of low-priority work (a prefetch) lifts it to its own
            // priority; an escalation before this handler shows here too.
            let current = Task.currentPriority
            if current > .low { escalate(key, to: current) }
            return try await waitForResult(key, id: id)
        } onPriorityEscalated: { [weak self] _, priority in
            self?.escalate(key, to: priority)
        }
    }

    /// The wait of ``awaitResult(_:)``, under its escalation handler.
    private func waitForResult(_ key: Key, id: UInt64) async throws -> JoinResult {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<JoinResult, any Error>) in
                let joined = state.withLock { $0.table.join(key, id: id, sink: .waiter(continuation)) }
                guard joined else { return continuation.resume(returning: .notRunning) }
                // A cancellation that came before the registration found
                // nothing to remove: take the subscriber back out here.
                if Task.isCancelled { leave(key, subscriber: id) }
            }
        } onCancel: {
            leave(key, subscriber: id)
        }
    }

    /// The outcome of ``awaitResult(_:)``.
    enum JoinResult: Sendable {
        case notRunning
        case finished(LoadResult?)
    }

    private func leave(_ key: Key, subscriber: UInt64) {
        let action = state.withLock { state -> Table.LeaveAction in
            defer { entryCount.store(state.table.entries.count, ordering: .relaxed) }
            return state.table.leave(key, id: subscriber)
        }
        switch action {
        case .none:
            break
        case .removed(let sink):
            if case .waiter(let continuation) = sink { continuation.resume(throwing: CancellationError()) }
        case .removedLast(let sink, let task):
            if case .waiter(let continuation) = sink { continuation.resume(throwing: CancellationError()) }
            task?.cancel()
        }
    }

    private func wantsPreviews(_ handle: Handle) -> Bool {
        state.withLock { $0.table.wantsPreviews(handle.key, generation: handle.generation) }
    }

    private func broadcast(_ handle: Handle, _ event: LoadEvent) {
        let sinks = state.withLock { $0.table.broadcast(handle.key, generation: handle.generation, event) }
        for case .channel(let channel) in sinks { channel.send(event) }
    }

    private func finish(_ handle: Handle, _ result: Result<LoadResult?, any Error>) {
        let subscribers = state.withLock { state -> [Table.Subscriber] in
            defer { entryCount.store(state.table.entries.count, ordering: .relaxed) }
            return state.table.finish(handle.key, generation: handle.generation)
        }
        // In the order they came (the table sorts by id; waiters after
        // channels), not the table's hash order: callers in one task group
        // complete in the order they are resumed, and the runtime unlinks
        // each finished child by walking the group's list of children from
        // the oldest (`TaskGroup::removeChildTask`), so a thousand joiners
        // resumed in hash order cost the group a quadratic walk: 6.7 % of the
        // CPU of 1,000 joiners of a 2 MP load, 0.02 % in arrival order (15.8
        // → 11.6 ms CPU per round).
        for subscriber in subscribers {
            switch (subscriber.sink, result) {
            case (.channel(let channel), .success(let response?)):
                channel.complete(with: response)
            case (.channel(let channel), .success(nil)):
                channel.finish()
            case (.channel(let channel), .failure(let error)):
                channel.finish(throwing: error)
            case (.waiter(let continuation), .success(let response)):
                continuation.resume(returning: .finished(response))
            case (.waiter(let continuation), .failure(let error)):
                continuation.resume(throwing: error)
            }
        }
    }
}
