/// A ``ResponseModifying`` made from a closure.
public struct ResponseModifier: ResponseModifying {
    private let body: @Sendable (DataResponseHead) -> DataResponseHead?

    /// Creates a modifier that calls `body`.
    /// - Parameter body: Returns the head to use, or nil to reject the response.
    public init(_ body: @escaping @Sendable (DataResponseHead) -> DataResponseHead?) {
        self.body = body
    }

    public func modifiedResponse(for head: DataResponseHead) -> DataResponseHead? {
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
