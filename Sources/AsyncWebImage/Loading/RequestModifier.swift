public import HTTPTypes

/// A ``RequestModifying`` made from a closure.
///
/// ```swift
/// let signed = RequestModifier { request in
///     var request = request
///     request.headers[.authorization] = "Bearer \(await tokens.current())"
///     return request
/// }
/// ```
public struct RequestModifier: RequestModifying {
    private let body: @Sendable (DataRequest) async throws -> DataRequest?

    /// Creates a modifier that calls `body`.
    /// - Parameter body: Returns the request to send, or nil to refuse it;
    ///   an error it throws (from ``DataRequest/setValue(_:forHTTPHeaderField:)``,
    ///   say) fails the load with that error.
    public init(_ body: @escaping @Sendable (DataRequest) async throws -> DataRequest?) {
        self.body = body
    }

    public func modifiedRequest(for request: DataRequest) async throws -> DataRequest? {
        try await body(request)
    }

    /// A modifier that sets header fields: each name in `fields` replaces
    /// the request's fields of that name (in any case) with its values here,
    /// in their order.
    /// - Parameter fields: The fields to set.
    public static func headers(_ fields: HTTPFields) -> RequestModifier {
        RequestModifier { request in
            var request = request
            var seen: Set<HTTPField.Name> = []
            for field in fields where seen.insert(field.name).inserted {
                request.headers[fields: field.name] = fields[fields: field.name]
            }
            return request
        }
    }
}
