import AWITestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// What a user can pass that the store cannot use is a typed error, never a
/// trap; a refused `AUTH` is named without the reply's text (which may quote
/// the password); a protocol violation says so once.
@Suite("RedisStore: configuration errors, AUTH refusals, protocol violations", .serialized, .timeLimit(.minutes(1)))
struct RedisConfigurationTests {
    private static let endpoint = RedisStore.Endpoint(host: "127.0.0.1", port: 6379)

    @Test("every value the store cannot use throws ConfigurationError naming the setting", arguments: [
        ("endpoints", { @Sendable (c: inout RedisStore.Configuration) in c.endpoints = [] }),
        ("keyPrefix", { $0.keyPrefix = "tenant{a}:" }),
        ("keyPrefix", { $0.keyPrefix = "}" }),
        ("endpoints", { $0.endpoints = [.init(host: "127.0.0.1", port: 0)] }),
        ("endpoints", { $0.endpoints = [.init(host: "127.0.0.1", port: 70_000)] }),
        ("endpoints", { $0.endpoints = [.init(host: "", port: 6379)] }),
        ("endpoints", { $0.endpoints = [.init(unixSocketPath: "")] }),
        ("database", { $0.database = -1 }),
        ("database", { $0.topology = .cluster; $0.database = 2 }),
        ("timeToLive", { $0.timeToLive = .seconds(Int64.max) }),
        ("timeToLive", { $0.timeToLive = .zero }),
        ("leaseDuration", { $0.leaseDuration = .seconds(-1) }),
        ("leasePollInterval", { $0.leasePollInterval = .zero }),
        ("commandTimeout", { $0.commandTimeout = .milliseconds(-5) }),
        ("connectionsPerEndpoint", { $0.connectionsPerEndpoint = 0 }),
        ("failureThreshold", { $0.failureThreshold = -3 }),
        ("maxValueBytes", { $0.maxValueBytes = 0 }),
        ("breakerCoolDown", { $0.breakerCoolDown = .seconds(-1) }),
    ] as [(String, @Sendable (inout RedisStore.Configuration) -> Void)])
    func refused(setting: String, change: @Sendable (inout RedisStore.Configuration) -> Void) {
        var configuration = RedisStore.Configuration(endpoints: [Self.endpoint])
        change(&configuration)
        let error = #expect(throws: RedisStore.ConfigurationError.self) { try RedisStore(configuration: configuration) }
        #expect(error?.setting == setting)
        #expect(error?.description.hasPrefix("RedisStore.Configuration.\(setting): ") == true)
        #expect(throws: RedisStore.ConfigurationError.self) { try configuration.validate() }
        // The defaults, and the edges of each range, are fine
        #expect((try? RedisStore(configuration: RedisStore.Configuration(endpoints: [Self.endpoint]))) != nil)
    }

    @Test("the one-node initialiser checks its host and port too")
    func convenience() {
        #expect(throws: RedisStore.ConfigurationError(setting: "endpoints", expected: "a host that is not empty")) {
            try RedisStore(host: "", port: 6379)
        }
        #expect((try? RedisStore(host: "127.0.0.1", port: 65_535)) != nil)
    }

    @Test("a renamed AUTH: the failure named by its error code, the reply's text (which quotes the password) nowhere")
    func renamedAuth() async throws {
        // Redis 7 answers an unknown command with its arguments quoted:
        // ERR unknown command 'AUTH', with args beginning with: 'tenant' 'hunter2secret'
        let server = try await RedisServer(arguments: ["--rename-command", "AUTH", ""])
        let logs = RecordingLogHandlerStore()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.credentials = .init(username: "tenant", password: "hunter2secret")
        configuration.logger = logs.logger()
        let store = try RedisStore(configuration: configuration)
        let error = await #expect(throws: RedisConnectionError.self) { try await store.checkConnection() }
        guard case .authenticationFailed(_, let message)? = error else {
            Issue.record("expected authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(message == "ERR: the server does not know AUTH (a renamed or disabled command)")
        #expect(!"\(error!)".contains("hunter2secret") && !"\(error!)".contains("'tenant'"))
        // At run time: misses, and debug lines that name the failure the same way
        for _ in 0..<2 { #expect(await store.data(forKey: "k") == nil) }
        let failures = logs.lines("shared tier request failed")
        #expect(!failures.isEmpty)
        for line in logs.lines {
            #expect(!line.metadata.values.contains { $0.contains("hunter2secret") }, "\(line)")
        }
    }

    @Test("AUTH refusals by their codes, without their text", arguments: [
        ("WRONGPASS invalid username-password pair or user is disabled.", "WRONGPASS: wrong user name or password, or the user is disabled"),
        ("ERR unknown command 'AUTH', with args beginning with: 'u' 'secret'", "ERR: the server does not know AUTH (a renamed or disabled command)"),
        ("ERR AUTH <password> called without any password configured for the default user.", "ERR: the server has no password set (requirepass), yet credentials were given"),
        ("NOPERM secret", "NOPERM: AUTH refused"),
        ("secret without a code", "ERR: AUTH refused"),
    ])
    func refusals(reply: String, named: String) {
        #expect(RedisAuthenticationRefusal(reply: reply).description == named)
    }

    @Test("a node that sends bytes that are not RESP: one 'protocol violation', with what was wrong")
    func protocolViolation() async throws {
        let garbage = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(GarbageReplies()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { garbage.close(promise: nil) }
        var configuration = RedisStore.Configuration(endpoints: [.init(host: "127.0.0.1", port: garbage.localAddress?.port ?? 0)])
        configuration.credentials = .init(password: "pw")
        let store = try RedisStore(configuration: configuration)
        let error = await #expect(throws: RedisConnectionError.self) { try await store.checkConnection() }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.hasSuffix(": protocol violation: not RESP: reply type byte 0"), "\(text)")
        #expect(text.components(separatedBy: "protocol violation").count == 2, "\(text)")
    }
}

/// Answers every command with a NUL byte and CRLF: not a RESP reply.
private final class GarbageReplies: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: [0, 0x0D, 0x0A])), promise: nil)
    }
}
