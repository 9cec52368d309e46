import AsyncWebImage
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One line per request at `info`, on every route (404s, 414s and the
/// operator's routes included): method, path (secrets replaced: signatures,
/// a source URL's userinfo), status, body bytes, duration, where the answer
/// came from and why it failed (redacted too). The server's log handler
/// (``EscapingLogHandler``) escapes every field, so no byte a client sent
/// can end the record or reach a terminal.
///
/// ```
/// info thumbnail-server: bytes=2811 cache=miss duration_ms=41.2 status=200 GET /-/rs:fit:64:64/plain/http://…/a.jpg@png
/// info thumbnail-server: bytes=67 cache=- duration_ms=3.0 error="HTTP status 404" status=502 GET /thumbnail?url=…&signature=-
/// ```
///
/// First in the chain after the metrics, so even a request refused for its
/// length has its line; the path logged is cut at ``maxLoggedPath`` bytes.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = ThumbnailRequestContext

    let logger: Logger
    /// The longest path logged; a longer one is cut, with its length said.
    static let maxLoggedPath = 1024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard logger.logLevel <= .info else { return try await next(request, context) }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context: context, status: response.status.code, bytes: request.method == .head ? 0 : response.body.contentLength, start: start)
            return response
        } catch {
            // Hummingbird's own errors (no route: 404; no such method: 405).
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            if context.outcome.errorReason == nil { context.outcome.errorReason = String(describing: error) }
            log(request, context: context, status: status, bytes: nil, start: start)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, bytes: Int?, start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "status": .stringConvertible(status),
            "bytes": bytes.map { .stringConvertible($0) } ?? "-",
            "duration_ms": .string(String(format: "%.1f", milliseconds)),
            "cache": .string(context.outcome.cacheStatus ?? "-"),
        ]
        // The reason may name the source URL; the log handler escapes it (EscapingLogHandler).
        if let reason = context.outcome.errorReason { metadata["error"] = .string(RedactedURL(reason).description) }
        logger.info("\(request.method) \(Self.loggedPath(request.head.path ?? ""))", metadata: metadata)
    }

    /// `target` with its secrets replaced (``LoggedTarget``: the signature
    /// of either URL form, the source URL's userinfo), cut at
    /// ``maxLoggedPath`` bytes.
    static func loggedPath(_ target: String) -> String {
        let path = LoggedTarget.redacted(target)
        guard path.utf8.count > maxLoggedPath else { return path }
        return String(decoding: path.utf8.prefix(maxLoggedPath), as: UTF8.self) + "… (\(path.utf8.count) bytes)"
    }
}
