import Hummingbird
import NIOCore

/// The request context of the server's routes: Hummingbird's core context,
/// plus the connection's channel, to find its ``ClientDisconnectWatch``.
struct ThumbnailRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
