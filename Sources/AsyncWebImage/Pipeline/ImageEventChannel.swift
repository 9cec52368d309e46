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
final class ImageEventChannel: Sendable {
    private struct State {
        var buffer = ImageEventBuffer()
        var waiter: UnsafeContinuation<ImageEvent?, any Error>?
        var onTermination: (@Sendable () -> Void)?
        var terminated = false
        var endDelivered = false
    }

    private let state = Lock(State())

    init() {}

    /// Registers what to do when the consumer goes away (typically: cancel
    /// the producer task). Runs at once if it has already gone; dropped if
    /// the producer has already finished, since nobody is left to tell.
    func onTermination(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.terminated { return true }
            if !state.buffer.isClosed { state.onTermination = action }
            return false
        }
        if runNow { action() }
    }

    /// Delivers or queues an event; ignored once the channel is closed.
    func send(_ event: ImageEvent) {
        let waiter = state.withLock { state -> UnsafeContinuation<ImageEvent?, any Error>? in
            guard !state.buffer.isClosed else { return nil }
            if let waiter = state.waiter, state.buffer.isEmpty {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Delivers a final response and ends the sequence after it: one lock
    /// and at most one wake-up, for the coalescer's fan-out to every caller
    /// of a finished load.
    func complete(with response: ImageResponse) {
        let event = ImageEvent.finished(response)
        let waiter = state.withLock { state -> UnsafeContinuation<ImageEvent?, any Error>? in
            guard !state.buffer.isClosed else { return nil }
            state.onTermination = nil
            if let waiter = state.waiter, state.buffer.isEmpty {
                state.waiter = nil
                state.buffer.close(.finished)
                return waiter
            }
            state.buffer.append(event)
            state.buffer.close(.finished)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Ends the sequence after the queued events, with `error` if given.
    ///
    /// The termination action is dropped: the producer has finished, and
    /// telling it that the consumer left would only cost a lookup in the
    /// coalescer's table for each of a thousand callers sharing one load.
    func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state -> UnsafeContinuation<ImageEvent?, any Error>? in
            guard !state.buffer.isClosed else { return nil }
            state.buffer.close(error.map { .failed($0) } ?? .finished)
            state.onTermination = nil
            guard state.buffer.isEmpty, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.endDelivered = true
            return waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The consumer has gone (cancelled, or stopped iterating): drop what is
    /// queued and tell the producer.
    func terminate() {
        let (waiter, action) = state.withLock { state in
            state.buffer.cancel()
            state.terminated = true
            // A waiting consumer gets its CancellationError below; after
            // that the sequence has ended.
            if state.waiter != nil { state.endDelivered = true }
            defer { state.waiter = nil; state.onTermination = nil }
            return (state.waiter, state.onTermination)
        }
        waiter?.resume(throwing: CancellationError())
        action?()
    }

    /// What the consumer can have now without waiting (called under the lock).
    private enum Ready { case event(ImageEvent), end, fail(any Error), none }

    private static func ready(_ state: inout State) -> Ready {
        if let event = state.buffer.popFirst() { return .event(event) }
        if state.endDelivered { return .end }
        if state.terminated {
            state.endDelivered = true
            return .fail(CancellationError())
        }
        switch state.buffer.end {
        case .finished?:
            state.endDelivered = true
            return .end
        case .failed(let error)?:
            state.endDelivered = true
            return .fail(error)
        case nil:
            return .none
        }
    }

    /// The next event, `nil` at the end; throws the load's error, or
    /// `CancellationError` when the consuming task is cancelled.
    func next() async throws -> ImageEvent? {
        // Fast path: something is ready; no continuation, no handler.
        switch state.withLock({ Self.ready(&$0) }) {
        case .event(let event): return event
        case .end: return nil
        case .fail(let error): throw error
        case .none: break
        }
        defer { state.observeHandOff() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<ImageEvent?, any Error>) in
                let ready = state.withLock { state -> Ready in
                    let ready = Self.ready(&state)
                    if case .none = ready { state.waiter = continuation }
                    return ready
                }
                switch ready {
                case .event(let event): continuation.resume(returning: event)
                case .end: continuation.resume(returning: nil)
                case .fail(let error): continuation.resume(throwing: error)
                case .none: break
                }
            }
        } onCancel: {
            terminate()
        }
    }
}
