import NIOConcurrencyHelpers

/// What a handler learned about its request that the access log reports:
/// where the answer came from and why it failed. One per request, shared
/// by the copies of its context that the middleware chain passes along.
final class RequestOutcome: Sendable {
    private struct State {
        var cacheStatus: String?
        var errorReason: String?
    }

    private let state = NIOLockedValueBox(State())

    /// Where the answer came from (`miss`, `hit-memory`, `hit-result-disk`…).
    var cacheStatus: String? {
        get { state.withLockedValue { $0.cacheStatus } }
        set { state.withLockedValue { $0.cacheStatus = newValue } }
    }

    /// Why the request failed: the one-line reason its error answer carries.
    var errorReason: String? {
        get { state.withLockedValue { $0.errorReason } }
        set { state.withLockedValue { $0.errorReason = newValue } }
    }
}
