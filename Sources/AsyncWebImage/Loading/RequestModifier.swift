/// A ``RequestModifying`` made from a closure.
///
/// ```swift
/// let signed = RequestModifier { request in
///     var request = request
///     request.setValue("Bearer \(await tokens.current())", forHTTPHeaderField: "Authorization")
///     return request
/// }
/// ```
public struct RequestModifier: RequestModifying {
    private let body: @Sendable (DataRequest) async -> DataRequest?

    /// Creates a modifier that calls `body`.
    /// - Parameter body: Returns the request to send, or nil to refuse it.
    public init(_ body: @escaping @Sendable (DataRequest) async -> DataRequest?) {
        self.body = body
    }

    public func modifiedRequest(for request: DataRequest) async -> DataRequest? {
        await body(request)
    }

    /// A modifier that sets header fields (replacing same-named ones).
    /// - Parameter fields: The fields to set.
    public static func headers(_ fields: [String: String]) -> RequestModifier {
        RequestModifier { request in
            var request = request
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
            return request
        }
    }
}
