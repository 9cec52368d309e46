import Foundation

/// Changes a request before it is sent (SDWebImage's request modifier):
/// add credentials or headers, rewrite the URL, or refuse the request.
///
/// It runs before the request is keyed for coalescing, so what it adds
/// (an `Authorization` field, say) keeps requests with different
/// credentials apart.
public protocol RequestModifying: Sendable {
    /// The request to send instead of `request`, or nil to refuse it; a
    /// refused request fails with ``ImageError/requestRejected(_:)`` and
    /// never reaches the network. A thrown ``ImageError`` (an invalid
    /// header from ``DataRequest/setValue(_:forHTTPHeaderField:)``, say)
    /// fails the load with that error, also before any request is sent;
    /// `CancellationError` cancels it; any other error fails it with
    /// ``ImageError/requestRejected(_:)``.
    /// - Parameter request: The request as built so far.
    func modifiedRequest(for request: DataRequest) async throws -> DataRequest?
}

extension RequestModifying {
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
            throw ImageError.requestRejected("\(request.url.absoluteString): \(error)")
        }
        guard let modified else { throw ImageError.requestRejected(request.url.absoluteString) }
        return modified
    }
}
