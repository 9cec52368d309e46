import NIOCore
import NIOPosix
import Synchronization

/// A fault injector posing as Redis: it accepts connections and answers
/// every command with a reply that never ends, one byte every `interval`
/// (`$1000000\r\n` then filler) — a node that is slow but never silent,
/// which a per-read timeout never catches.
final class TricklingRedis: Sendable {
    let port: Int
    private let channel: any Channel
    private let counter: AcceptCounter

    /// Connections accepted so far.
    var acceptedConnections: Int { counter.count.load(ordering: .relaxed) }

    init(interval: Duration = .milliseconds(20)) async throws {
        let counter = AcceptCounter()
        self.counter = counter
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                counter.increment()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(TrickleHandler(interval: TimeAmount(interval)))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    func stop() async {
        try? await channel.close()
    }

    /// Counts accepted connections.
    private final class AcceptCounter: Sendable {
        let count = Atomic<Int>(0)
        func increment() { count.wrappingAdd(1, ordering: .relaxed) }
    }
}

/// Writes one byte of an endless reply every `interval` once a command arrives.
private final class TrickleHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let interval: TimeAmount
    private var task: RepeatedTask?
    private let reply = Array("$1000000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 1_000_000)
    private var sent = 0

    init(interval: TimeAmount) {
        self.interval = interval
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard task == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        task = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (handler, context) = loopBound.value
            handler.trickle(context)
        }
    }

    private func trickle(_ context: ChannelHandlerContext) {
        guard sent < reply.count, context.channel.isActive else { return }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: reply[sent..<(sent + 1)])), promise: nil)
        sent += 1
    }

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        context.fireChannelInactive()
    }
}
