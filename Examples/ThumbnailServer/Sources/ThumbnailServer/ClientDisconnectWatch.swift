import NIOConcurrencyHelpers

/// Cancels the work of one connection's requests when its client goes away.
///
/// Hummingbird runs a handler to its end even after the client closed the
/// connection (it only notices when writing the answer), so an abandoned
/// thumbnail would keep its upstream transfer and its decode permit. The
/// connection's ``ClientDisconnectHandler`` calls ``clientLeft()`` when the
/// client closes its side or the connection drops; each request's work runs
/// in a task registered here, which is then cancelled, and the loader gives
/// its slots back (it leaves within 0.2 s of cancellation).
final class ClientDisconnectWatch: Sendable {
    private struct State {
        var clientGone = false
        var nextID = 0
        var cancellers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the client has gone.
    var clientGone: Bool { state.withLockedValue { $0.clientGone } }

    /// Runs `operation` in a task that is cancelled when the client leaves
    /// (or when the caller is cancelled), and returns its result.
    func run<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> Value {
        // An unstructured task, because the cancellation comes from an event
        // loop thread; it inherits the caller's task-locals (the trace context).
        let task = Task { await operation() }
        let id: Int? = state.withLockedValue { state in
            guard !state.clientGone else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.cancellers[id] = { task.cancel() }
            return id
        }
        if id == nil { task.cancel() }
        let value = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        if let id { _ = state.withLockedValue { $0.cancellers.removeValue(forKey: id) } }
        return value
    }

    /// Cancels every registered task, and every later one at once.
    func clientLeft() {
        let cancellers = state.withLockedValue { state in
            state.clientGone = true
            defer { state.cancellers = [:] }
            return Array(state.cancellers.values)
        }
        // Outside the lock: cancelling runs cancellation handlers.
        for cancel in cancellers { cancel() }
    }
}
