import HTTPTypes
import Hummingbird
import NIOCore

/// The request context of the server's routes: Hummingbird's core context,
/// plus the connection's channel, to find its ``ClientDisconnectWatch``,
/// and the request's ``RequestOutcome`` for the access log.
struct ThumbnailRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel
    /// What the handler reports to the access log.
    let outcome = RequestOutcome()
    /// The request head as sent while the tracing middleware sees it
    /// redacted (``SpanTargetRedaction``); `nil` otherwise.
    var targetAsSent: HTTPRequest?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
