import HTTPTypes
import Hummingbird
import Tracing

/// Keeps secrets out of the request's span: Hummingbird's
/// `TracingMiddleware` records the path and query as sent (`url.path`,
/// `url.query`), which would export a signature or a source URL's userinfo
/// to the collector. ``hide`` runs just before it and hands it the request
/// with its target redacted (``LoggedTarget``); ``restore`` runs just after
/// it and gives the routes the target as sent, which they need to check
/// signatures and parse the source.
enum SpanTargetRedaction {
    /// Before the tracing middleware: the target redacted, the original kept in the context.
    struct Hide: RouterMiddleware {
        typealias Context = ThumbnailRequestContext

        /// Whether a tracer was bootstrapped (`--otel-endpoint`): without one
        /// no span records anything, and no request pays for the redaction.
        let isTracing = !(InstrumentationSystem.tracer is NoOpTracer)

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            guard isTracing else { return try await next(request, context) }
            let target = request.head.path ?? ""
            let redacted = LoggedTarget.redacted(target)
            guard redacted != target else { return try await next(request, context) }
            var context = context
            context.targetAsSent = request.head
            var head = request.head
            head.path = redacted
            return try await next(Request(head: head, body: request.body), context)
        }
    }

    /// After the tracing middleware: the target as sent again.
    struct Restore: RouterMiddleware {
        typealias Context = ThumbnailRequestContext

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            guard let head = context.targetAsSent else { return try await next(request, context) }
            var context = context
            context.targetAsSent = nil
            return try await next(Request(head: head, body: request.body), context)
        }
    }

    /// A middleware before the tracing middleware.
    static var hide: Hide { Hide() }
    /// A middleware after the tracing middleware.
    static var restore: Restore { Restore() }
}
