import Foundation
import Synchronization
import AWILocking

/// One coalesced transfer: the state machine under a lock, the loader's
/// transfer feeding it, and the subscribers pulling from it.
///
/// Subscribers read without going through the coalescer actor: each pull
/// takes the lock briefly, and a subscriber with nothing new suspends until
/// the producer resumes it. Continuations are resumed outside the lock.
final class DownloadTransfer: Sendable {
    typealias Waiter = CheckedContinuation<Void, any Error>
    typealias Machine = DownloadCoalescerStateMachine<Waiter>

    let key: DataRequest.Key
    private let state: Lock<Machine>
    /// Changes the loader's priority for the transfer while it waits.
    private let prioritize: @Sendable (DataRequest.Priority) -> Void

    private struct Producer {
        /// The loader's events until ``start(coalescer:)`` takes them: once
        /// the producer lets go of them, the loader's transfer stops.
        var source: DataTransfer?
        var task: Task<Void, Never>?
        var cancelled = false
    }
    private let producer: Lock<Producer>

    /// Starts loading `request` through `loader` (the events are read once ``start(coalescer:)`` runs).
    init(request: DataRequest, loader: any DataLoading, maxBytes: Int64) {
        key = request.key
        state = Lock(Machine(priority: request.priority, maxBytes: maxBytes))
        let source = loader.loadData(for: request)
        prioritize = source.prioritize
        producer = Lock(Producer(source: source))
    }

    /// Starts reading the loader's events; tells `coalescer` when the transfer ends.
    func start(coalescer: DownloadCoalescer) {
        let task = Task.detached { [self] in
            await run()
            await coalescer.transferEnded(self)
        }
        let cancelNow = producer.withLock { producer in
            producer.task = task
            return producer.cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Feeds the state machine from the loader's events; on a failure
    /// (including this task's cancellation) it stops the loader's transfer.
    private func run() async {
        // Taken here, not captured by the task's closure, so that it is
        // released as soon as this returns.
        guard let source = producer.withLock({ $0.source.take() }) else { return }
        do {
            for try await event in source {
                switch event {
                case .head(let head):
                    resume(state.withLock { $0.receiveHead(head) })
                case .chunk(let data):
                    switch state.withLock({ $0.receive(data) }) {
                    case .success(let waiters): resume(waiters)
                    case .failure(let error): throw error
                    }
                }
            }
            resume(state.withLock { $0.complete() })
        } catch {
            // Stop the loader now rather than when the events are released.
            source.cancel()
            resume(state.withLock { $0.fail(error) })
        }
    }

    private func resume(_ waiters: [Waiter]) {
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Subscribers

    /// Adds a subscriber at `priority`; nil when the transfer has ended (start a new one).
    func join(priority: DataRequest.Priority) -> Machine.SubscriberID? {
        switch state.withLock({ $0.join(priority: priority) }) {
        case .closed: return nil
        case .joined(let id, let reprioritize):
            if let reprioritize { prioritize(reprioritize) }
            return id
        }
    }

    /// Removes a subscriber (idempotent); cancels the transfer if it was the last.
    func leave(_ id: Machine.SubscriberID) {
        let (action, waiter) = state.withLock { $0.leave(id) }
        waiter?.resume(throwing: CancellationError())
        switch action {
        case .none: break
        case .reprioritize(let priority): prioritize(priority)
        case .cancelTransfer:
            let task = producer.withLock { producer in
                producer.cancelled = true
                return producer.task
            }
            task?.cancel()
        }
    }

    /// The next event for subscriber `id`, suspending until there is one;
    /// nil after the completion.
    /// - Throws: The transfer's error, or `CancellationError`.
    func next(_ id: Machine.SubscriberID) async throws -> DownloadEvent? {
        while true {
            switch state.withLock({ $0.next(id) }) {
            case .event(let event): return event
            case .end: return nil
            case .fail(let error): throw error
            case .wait: try await wait(id)
            }
        }
    }

    private func wait(_ id: Machine.SubscriberID) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let action = state.withLock { $0.suspend(id, continuation, isCancelled: Task.isCancelled) }
                switch action {
                case .suspended: break
                case .ready: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            // Leave here, on the cancelling thread, rather than when the
            // resumed task gets to run: the transfer (if this was its last
            // subscriber) stops without waiting for a busy pool.
            leave(id)
        }
    }

    /// Subscribers now (for tests and statistics).
    var subscriberCount: Int { state.withLock { $0.subscriberCount } }
}
