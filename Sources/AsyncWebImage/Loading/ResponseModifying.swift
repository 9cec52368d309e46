/// Sees a response's head before its body is used (SDWebImage's response
/// modifier): change what the rest of the pipeline sees, or reject it.
///
/// It applies to one subscriber: when a coalesced transfer is rejected by one
/// subscriber's modifier, the others are not disturbed.
public protocol ResponseModifying: Sendable {
    /// The head to use instead of `head`, or nil to reject the response with
    /// ``ImageError/responseRejected(_:)``.
    /// - Parameter head: The response head as received.
    func modifiedResponse(for head: DataResponseHead) -> DataResponseHead?
}
