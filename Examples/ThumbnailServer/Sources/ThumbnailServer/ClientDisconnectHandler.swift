import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// A channel handler in each HTTP/1 connection's pipeline that tells the
/// connection's ``ClientDisconnectWatch`` when the client closes its side
/// (Hummingbird allows half-closure, so that is an `inputClosed` event, not
/// a closed channel) or the connection drops.
///
/// Handlers see the channel, request handlers only their context; the two
/// meet in ``registry``, keyed by the channel's identity while it is open.
final class ClientDisconnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// The watch of every open connection, by the identity of its channel.
    static let registry = NIOLockedValueBox<[ObjectIdentifier: ClientDisconnectWatch]>([:])

    /// The watch of `channel`'s connection, if it has one.
    static func watch(for channel: any Channel) -> ClientDisconnectWatch? {
        registry.withLockedValue { $0[ObjectIdentifier(channel)] }
    }

    private let watch = ClientDisconnectWatch()
    private var key: ObjectIdentifier?

    init() {}

    func handlerAdded(context: ChannelHandlerContext) {
        let key = ObjectIdentifier(context.channel)
        self.key = key
        let watch = watch
        Self.registry.withLockedValue { $0[key] = watch }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        forget()
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.clientLeft()
        forget()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            watch.clientLeft()
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Leaves the registry; only this connection's entry (a later channel may
    /// have the same identity once this one is freed).
    private func forget() {
        guard let key else { return }
        self.key = nil
        let watch = watch
        Self.registry.withLockedValue { registry in
            if registry[key] === watch { registry[key] = nil }
        }
    }
}
