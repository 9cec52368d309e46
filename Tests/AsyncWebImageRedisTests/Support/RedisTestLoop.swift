import NIOCore
import NIOPosix

/// The event loop the tests' own connections (``RedisServer/command(_:)``)
/// and fake servers use: one of NIO's shared group, as the store's.
enum RedisTestLoop {
    static var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.next() }
}
