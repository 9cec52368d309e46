/// The pure state of an ``ImageEventChannel``: the event buffer, the parked
/// consumer and the termination action, with every transition returning
/// what the glue must do once the lock is released (resume a waiter, run
/// an action). Generic over the waiter and the action so that tests drive
/// every transition with plain values, no continuation and no task.
struct ImageEventChannelStateMachine<Waiter, Termination> {
    private var buffer = ImageEventBuffer()
    private var waiter: Waiter?
    private var termination: Termination?
    private var terminated = false
    private var endDelivered = false

    init() {}

    /// What the consumer can have now without waiting.
    enum Ready {
        case event(LoadEvent)
        case end
        case fail(any Error)
        case none
    }

    /// What ``onTermination(_:)`` decided.
    enum TerminationRegistration {
        /// The consumer has already gone: run the action now.
        case runNow(Termination)
        /// Kept for when the consumer goes.
        case stored
        /// The producer has finished: nobody is left to tell.
        case dropped
    }

    /// A waiter to resume, and with what.
    enum Resume {
        case none
        case returning(Waiter, LoadEvent?)
        case throwing(Waiter, any Error)
    }

    /// Whether nothing more can be sent.
    var isClosed: Bool { buffer.isClosed }
    /// Whether a consumer is parked.
    var hasWaiter: Bool { waiter != nil }
    /// Whether a termination action is kept.
    var hasTermination: Bool { termination != nil }

    mutating func onTermination(_ action: Termination) -> TerminationRegistration {
        if terminated { return .runNow(action) }
        guard !buffer.isClosed else { return .dropped }
        termination = action
        return .stored
    }

    /// Delivers `event` to a parked consumer, or queues it; ignored once closed.
    mutating func send(_ event: LoadEvent) -> Resume {
        guard !buffer.isClosed else { return .none }
        if let waiter, buffer.isEmpty {
            self.waiter = nil
            return .returning(waiter, event)
        }
        buffer.append(event)
        return .none
    }

    /// A final response, then the end; the termination action is dropped.
    mutating func complete(with response: LoadResult) -> Resume {
        let event = LoadEvent.finished(response)
        guard !buffer.isClosed else { return .none }
        termination = nil
        if let waiter, buffer.isEmpty {
            self.waiter = nil
            buffer.close(.finished)
            return .returning(waiter, event)
        }
        buffer.append(event)
        buffer.close(.finished)
        return .none
    }

    /// The end after the queued events, with `error` if given; the
    /// termination action is dropped (the producer has finished).
    mutating func finish(throwing error: (any Error)?) -> Resume {
        guard !buffer.isClosed else { return .none }
        buffer.close(error.map { .failed($0) } ?? .finished)
        termination = nil
        guard buffer.isEmpty, let waiter else { return .none }
        self.waiter = nil
        endDelivered = true
        if let error { return .throwing(waiter, error) }
        return .returning(waiter, nil)
    }

    /// The consumer has gone: queued events are dropped, a parked consumer
    /// gets `CancellationError`, and the termination action is handed out.
    mutating func terminate() -> (resume: Resume, termination: Termination?) {
        buffer.cancel()
        terminated = true
        let waiter = waiter
        let termination = termination
        self.waiter = nil
        self.termination = nil
        guard let waiter else { return (.none, termination) }
        // The waiting consumer gets its CancellationError; after that the sequence has ended.
        endDelivered = true
        return (.throwing(waiter, CancellationError()), termination)
    }

    /// What the consumer can have now (the fast path of `next()`).
    mutating func next() -> Ready {
        if let event = buffer.popFirst() { return .event(event) }
        if endDelivered { return .end }
        if terminated {
            endDelivered = true
            return .fail(CancellationError())
        }
        switch buffer.end {
        case .finished?:
            endDelivered = true
            return .end
        case .failed(let error)?:
            endDelivered = true
            return .fail(error)
        case nil:
            return .none
        }
    }

    /// What the consumer can have now, or `.none` after parking `waiter`.
    mutating func next(parking waiter: Waiter) -> Ready {
        let ready = next()
        if case .none = ready { self.waiter = waiter }
        return ready
    }
}

extension ImageEventChannelStateMachine: Sendable where Waiter: Sendable, Termination: Sendable {}
