/// Sees a response's head before its body is used (SDWebImage's response
/// modifier): change what the rest of the pipeline sees, or reject it.
///
/// It applies to one subscriber: when a coalesced transfer is rejected by one
/// subscriber's modifier, the others are not disturbed.
public struct ResponseModifier: Sendable {
    private let body: @Sendable (HTTPResponseHead) -> HTTPResponseHead?

    /// Creates a modifier that calls `body`.
    /// - Parameter body: Returns the head to use, or nil to reject the response.
    public init(_ body: @escaping @Sendable (HTTPResponseHead) -> HTTPResponseHead?) {
        self.body = body
    }

    /// The head to use instead of `head`, or nil to reject the response with
    /// ``ImageError/responseRejected(_:)``.
    /// - Parameter head: The response head as received.
    public func modifiedResponse(for head: HTTPResponseHead) -> HTTPResponseHead? {
        body(head)
    }

    /// Rejects a response whose `Content-Type` is present and neither
    /// `image/*` nor `application/octet-stream` (so an HTML error page served
    /// with status 200 never reaches a decoder or a cache).
    public static let requireImageContentType = ResponseModifier { head in
        guard let type = head.mimeType else { return head }
        return type.hasPrefix("image/") || type == "application/octet-stream" ? head : nil
    }
}
