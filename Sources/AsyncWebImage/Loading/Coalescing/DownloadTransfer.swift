import Foundation
import HTTPTypes
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
    private let request: DataRequest
    private let loader: any DataLoading
    private let retryPolicy: DataRequest.RetryPolicy
    private let retryObserver: RetryObserver?

    /// Told, before the wait, that `request` failed with `error` and attempt `number` (2 or more) follows.
    typealias RetryObserver = @Sendable (_ request: DataRequest, _ error: any Error, _ number: Int) -> Void

    private struct Producer {
        /// The loader's events until ``start(coalescer:)`` takes them: once
        /// the producer lets go of them, the loader's transfer stops.
        var source: DataRequest.Transfer?
        /// Changes the loader's priority for the current attempt while it waits.
        var prioritize: @Sendable (DataRequest.Priority) -> Void
        var task: Task<Void, Never>?
        var cancelled = false
    }
    private let producer: Lock<Producer>

    /// How one attempt ended.
    private enum Attempt {
        case completed
        /// `retryAfter` is the server's wish, when it said; `retryable` is
        /// false when a further attempt cannot help whatever the error says.
        case failed(any Error, retryAfter: Duration?, retryable: Bool)
        /// The answer to a range request could not be spliced to the bytes so
        /// far: the next attempt asks for the whole representation again.
        case restartFromZero
    }

    /// Where the next attempt starts.
    private enum Start {
        /// The first attempt, or a retry before any body byte.
        case beginning
        /// After a cut: the rest, on the conditions of `ResumePoint`.
        case resuming(ResumePoint)
        /// After an answer that could not be spliced: the whole body again,
        /// replacing the bytes so far.
        case restarting
    }

    /// Starts loading `request` through `loader` (the events are read once ``start(coalescer:)`` runs).
    /// - Parameters:
    ///   - request: What to load.
    ///   - loader: Where the attempts run.
    ///   - maxBytes: The most body bytes kept.
    ///   - retryPolicy: How failed attempts are retried; ``DataRequest/RetryPolicy/none`` by default.
    ///   - retryObserver: Told of each retry.
    init(request: DataRequest, loader: any DataLoading, maxBytes: Int64, retryPolicy: DataRequest.RetryPolicy = .none, retryObserver: RetryObserver? = nil) {
        self.retryObserver = retryObserver
        key = request.key
        self.request = request
        self.loader = loader
        self.retryPolicy = retryPolicy
        state = Lock(Machine(priority: request.priority, maxBytes: maxBytes))
        let source = loader.loadData(for: request)
        producer = Lock(Producer(source: source, prioritize: source.prioritize))
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

    private func prioritize(_ priority: DataRequest.Priority) {
        producer.withLock { $0.prioritize }(priority)
    }

    /// Runs the attempts: the first, then, after each transient failure and
    /// while the policy allows, a wait and another one — for the rest of the
    /// body when the response can resume (see ``ResumePoint``), else from
    /// the start when no body byte arrived yet. An answer to the range
    /// request that cannot be spliced (RFC 9110 §14: another validator,
    /// range or length) costs one more attempt, for the whole body again. This task's cancellation
    /// (the last subscriber left) ends every wait at once.
    private func run() async {
        // Taken here, not captured by the task's closure, so that it is
        // released as soon as this returns.
        guard var source = producer.withLock({ $0.source.take() }) else { return }
        var start = Start.beginning
        var failures = 0
        while true {
            let attempt = await feed(source, from: start)
            let next: Start
            switch attempt {
            case .completed:
                resume(state.withLock { $0.complete() })
                return
            case .restartFromZero:
                source.cancel()
                failures += 1
                // RFC 9110 §14: bytes of another representation, range or
                // length are never spliced; the whole body again instead, as
                // one more attempt (immediately: the server answered).
                guard !Task.isCancelled, failures < retryPolicy.maxAttempts else {
                    let message = "the answer to the range request could not be spliced to the bytes received"
                    resume(state.withLock { $0.fail(ImageError.network(.init(kind: .connectionLost, code: 0, message: message))) })
                    return
                }
                next = .restarting
            case .failed(let error, let retryAfter, let retryable):
                // Stop the loader now rather than when the events are released.
                source.cancel()
                failures += 1
                let (received, head) = state.withLock { ($0.receivedCount, $0.head) }
                let point = received > 0 ? ResumePoint(head: head, offset: received) : nil
                guard retryable, !Task.isCancelled, retryPolicy.isTransient(error), received == 0 || point != nil,
                      let delay = retryPolicy.delay(afterFailures: failures, retryAfter: retryAfter, random: .random(in: 0...1))
                else {
                    resume(state.withLock { $0.fail(error) })
                    return
                }
                retryObserver?(request, error, failures + 1)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    resume(state.withLock { $0.fail(error) })
                    return
                }
                next = point.map(Start.resuming) ?? .beginning
            }
            var retry = request
            retry.priority = state.withLock { $0.priority }
            if case .resuming(let point) = next {
                for field in point.headerFields { retry.headers[field.name] = field.value }
            }
            source = loader.loadData(for: retry)
            producer.withLock { $0.prioritize = source.prioritize }
            start = next
        }
    }

    /// Feeds one attempt's events to the state machine. A resumed attempt's
    /// head is checked against its ``ResumePoint`` and not passed on
    /// (subscribers have the first one) when its bytes go on from the ones
    /// received; when the server sent the same body whole, the part already
    /// received is skipped; when it sent another representation, the body
    /// restarts with it. A restarting attempt's head restarts the body.
    private func feed(_ source: DataRequest.Transfer, from start: Start) async -> Attempt {
        var skip = 0
        var lastHead: HTTPResponseHead?
        do {
            for try await event in source {
                switch event {
                case .head(let head):
                    lastHead = head
                    switch start {
                    case .beginning:
                        resume(state.withLock { $0.receiveHead(head) })
                    case .restarting:
                        resume(state.withLock { $0.restart(head) })
                    case .resuming(let point):
                        switch point.classify(head) {
                        case .rest: break
                        case .whole: skip = point.offset
                        case .replacement: resume(state.withLock { $0.restart(head) })
                        case .unusable: return .restartFromZero
                        }
                    }
                case .chunk(var data):
                    if skip > 0 {
                        let dropped = min(skip, data.count)
                        skip -= dropped
                        guard dropped < data.count else { break }
                        data = Data(data.dropFirst(dropped))
                    }
                    switch state.withLock({ $0.receive(data) }) {
                    case .success(let waiters): resume(waiters)
                    case .failure(let error): return .failed(error, retryAfter: nil, retryable: false)
                    }
                }
            }
            if skip > 0 {
                let message = "the body sent again was shorter than the \(skip) bytes received before"
                return .failed(ImageError.network(.init(kind: .connectionLost, code: 0, message: message)),
                               retryAfter: nil, retryable: false)
            }
            return .completed
        } catch {
            let wish = (source.failedHead?() ?? lastHead)?.headers[.retryAfter].flatMap { DataRequest.RetryPolicy.retryAfter($0) }
            return .failed(error, retryAfter: wish, retryable: true)
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

    /// Raises subscriber `id` to `priority`, promoting the waiting transfer
    /// when no subscriber had that priority yet.
    func raise(_ id: Machine.SubscriberID, to priority: DataRequest.Priority) {
        if let promoted = state.withLock({ $0.raise(id, to: priority) }) { prioritize(promoted) }
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
