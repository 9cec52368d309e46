import Hummingbird

/// `--max-url-length` for every request: a request target (path and query,
/// as sent) longer than the limit is a 414 (RFC 9110 §15.5.15: a target
/// longer than the server will interpret) before any route runs.
///
/// A middleware rather than a check in each handler, so no route can miss it
/// (`/health`, `/metrics`, the imgproxy-style routes, an unknown path that
/// would be a 404, and the HEAD routes Hummingbird derives from each GET),
/// and placed ahead of the tracing span, which records the target: a
/// megabyte-long URL reaches neither it, nor the upstream, nor a cache key.
/// The metrics middleware runs before it and counts the 414 by its route,
/// which carries no part of the target; the access log runs before it too,
/// and logs at most the target's first kilobyte.
struct RequestTargetLimitMiddleware: RouterMiddleware {
    typealias Context = ThumbnailRequestContext

    /// The longest request target accepted, in bytes.
    let maxLength: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let length = request.head.path?.utf8.count ?? 0
        guard length <= maxLength else {
            return ThumbnailController.errorResponse(
                for: ThumbnailError.uriTooLong("the request URL is \(length) bytes, over the limit of \(maxLength) (--max-url-length)"),
                outcome: context.outcome
            )
        }
        return try await next(request, context)
    }
}
