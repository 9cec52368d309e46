import Synchronization
import AWILocking

/// The glue between one load's producer task and its one consumer: a
/// Mutex-guarded ``ImageEventBuffer`` plus the consumer's waiting
/// continuation. The producer never blocks; the consumer gets the newest
/// state when it asks.
///
/// The continuation is an `UnsafeContinuation`: a thousand callers sharing
/// one load each park one, and the checked kind allocates a tracking object
/// per wait. It is resumed exactly once: whoever takes it out of `waiter`
/// under the lock (send, finish, complete, terminate) resumes it, and
/// `next()` resumes it itself only when it never stored it.
///
/// The decisions are ``ImageEventChannelStateMachine``'s; this class holds it
/// under a lock and runs the actions it returns after releasing the lock.
final class ImageEventChannel: Sendable {
    private typealias Waiter = UnsafeContinuation<LoadEvent?, any Error>
    private typealias Machine = ImageEventChannelStateMachine<Waiter, @Sendable () -> Void>

    private let state = Lock(Machine())
    /// What to do when the consumer's task is escalated while it waits:
    /// the coalescer promotes the shared work (and, through it, the download).
    private let escalation = Lock<(@Sendable (TaskPriority) -> Void)?>(nil)
    /// The highest consumer priority the producer has been told of
    /// (`TaskPriority.rawValue`): a wait only escalates above it.
    private let toldPriority = Atomic<UInt8>(0)

    init() {}

    /// Registers how to promote the producer when the consumer's task is
    /// escalated while it waits in ``next()`` (priority follows the task).
    func onEscalation(_ action: @escaping @Sendable (TaskPriority) -> Void) {
        // The consumer subscribes from its own task: the work starts at (or
        // above) this priority, so only a rise beyond it needs telling.
        toldPriority.store(Task.currentPriority.rawValue, ordering: .relaxed)
        escalation.withLock { $0 = action }
    }

    /// Tells the producer of `priority` if it is above what it was told.
    private func escalate(to priority: TaskPriority) {
        // One atomic max: of two racing waits, only the one that raised it tells.
        guard toldPriority.max(priority.rawValue, ordering: .relaxed).oldValue < priority.rawValue else { return }
        escalation.withLock { $0 }?(priority)
    }

    /// Registers what to do when the consumer goes away (typically: cancel
    /// the producer task). Runs at once if it has already gone; dropped if
    /// the producer has already finished, since nobody is left to tell.
    func onTermination(_ action: @escaping @Sendable () -> Void) {
        if case .runNow(let action) = state.withLock({ $0.onTermination(action) }) { action() }
    }

    /// Delivers or queues an event; ignored once the channel is closed.
    func send(_ event: LoadEvent) {
        Self.run(state.withLock { $0.send(event) })
    }

    /// Delivers a final response and ends the sequence after it: one lock
    /// and at most one wake-up, for the coalescer's fan-out to every caller
    /// of a finished load.
    func complete(with response: LoadResult) {
        Self.run(state.withLock { $0.complete(with: response) })
    }

    /// Ends the sequence after the queued events, with `error` if given.
    ///
    /// The termination action is dropped: the producer has finished, and
    /// telling it that the consumer left would only cost a lookup in the
    /// coalescer's table for each of a thousand callers sharing one load.
    func finish(throwing error: (any Error)? = nil) {
        Self.run(state.withLock { $0.finish(throwing: error) })
    }

    /// The consumer has gone (cancelled, or stopped iterating): drop what is
    /// queued and tell the producer.
    func terminate() {
        let (resume, action) = state.withLock { $0.terminate() }
        Self.run(resume)
        action?()
    }

    private static func run(_ resume: Machine.Resume) {
        switch resume {
        case .none: break
        case .returning(let waiter, let event): waiter.resume(returning: event)
        case .throwing(let waiter, let error): waiter.resume(throwing: error)
        }
    }

    /// The next event, `nil` at the end; throws the load's error, or
    /// `CancellationError` when the consuming task is cancelled.
    func next() async throws -> LoadEvent? {
        // Fast path: something is ready; no continuation, no handler.
        switch state.withLock({ $0.next() }) {
        case .event(let event): return event
        case .end: return nil
        case .fail(let error): throw error
        case .none: break
        }
        defer { state.observeHandOff() }
        return try await withTaskPriorityEscalationHandler {
            // An escalation that came before this handler was installed
            // shows in the task's priority instead.
            escalate(to: Task.currentPriority)
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: Waiter) in
                    switch state.withLock({ $0.next(parking: continuation) }) {
                    case .event(let event): continuation.resume(returning: event)
                    case .end: continuation.resume(returning: nil)
                    case .fail(let error): continuation.resume(throwing: error)
                    case .none: break
                    }
                }
            } onCancel: {
                terminate()
            }
        } onPriorityEscalated: { [self] _, priority in
            escalate(to: priority)
        }
    }
}
