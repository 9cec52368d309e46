import Foundation
public import HTTPTypes

/// Changes a request before it is sent (SDWebImage's request modifier):
/// add credentials or headers, rewrite the URL, or refuse the request.
///
/// It runs before the request is keyed for coalescing and caching, so what
/// it adds (an `Authorization` field, say) keeps requests with different
/// credentials apart.
///
/// ```swift
/// let signed = RequestModifier { request in
///     var request = request
///     request.headers[.authorization] = "Bearer \(await tokens.current())"
///     return request
/// }
/// ```
public struct RequestModifier: Sendable {
    private let body: @Sendable (DataRequest) async throws -> DataRequest?

    /// Creates a modifier that calls `body`.
    /// - Parameter body: Returns the request to send, or nil to refuse it;
    ///   an error it throws (from ``DataRequest/setValue(_:forHTTPHeaderField:)``,
    ///   say) fails the load with that error.
    public init(_ body: @escaping @Sendable (DataRequest) async throws -> DataRequest?) {
        self.body = body
    }

    /// The request to send instead of `request`, or nil to refuse it; a
    /// refused request fails with ``ImageError/requestRejected(_:)`` and
    /// never reaches the network. A thrown ``ImageError`` (an invalid
    /// header from ``DataRequest/setValue(_:forHTTPHeaderField:)``, say)
    /// fails the load with that error, also before any request is sent;
    /// `CancellationError` cancels it; any other error fails it with
    /// ``ImageError/requestRejected(_:)``.
    /// - Parameter request: The request as built so far.
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

extension RequestModifier {
    /// The request to send, by ``modifiedRequest(for:)`` and the rule it
    /// documents: the one place both the loader and the download coalescer
    /// turn a refusal or a foreign error into an ``ImageError``.
    func resolvedRequest(for request: DataRequest) async throws -> DataRequest {
        let modified: DataRequest?
        do {
            modified = try await modifiedRequest(for: request)
        } catch let error as ImageError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw ImageError.requestRejected("\(RedactedURL(request.url)): \(error)")
        }
        guard let modified else { throw ImageError.requestRejected(RedactedURL(request.url).description) }
        return modified
    }
}
