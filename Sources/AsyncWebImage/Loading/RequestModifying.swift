/// Changes a request before it is sent (SDWebImage's request modifier):
/// add credentials or headers, rewrite the URL, or refuse the request.
///
/// It runs before the request is keyed for coalescing, so what it adds
/// (an `Authorization` field, say) keeps requests with different
/// credentials apart.
public protocol RequestModifying: Sendable {
    /// The request to send instead of `request`, or nil to refuse it; a
    /// refused request fails with ``ImageError/requestRejected(_:)`` and
    /// never reaches the network.
    /// - Parameter request: The request as built so far.
    func modifiedRequest(for request: DataRequest) async -> DataRequest?
}
