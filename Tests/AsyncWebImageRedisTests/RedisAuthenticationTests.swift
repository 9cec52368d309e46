import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// A real `redis-server --requirepass` with an ACL user limited to one
/// tenant's prefix: the password and ACL user work, the wrong ones are a
/// typed error at start-up and a quick miss at run time, and the ACL keeps
/// one tenant out of another's keys.
@Suite("RedisStore: AUTH and ACL users", .serialized, .timeLimit(.minutes(1)))
struct RedisAuthenticationTests {
    /// A server whose `default` user needs `admin-secret`, and user
    /// `tenant-a` (password `a-secret`) who may touch `tenant-a:*` only.
    private func server() async throws -> RedisServer {
        try await RedisServer(arguments: [
            "--requirepass", "admin-secret",
            "--user", "tenant-a", "on", ">a-secret", "~tenant-a:*", "+@all", "-@dangerous", "+info",
        ], adminPassword: "admin-secret")
    }

    private func store(_ server: RedisServer, _ credentials: RedisStore.Credentials?, prefix: String) throws -> RedisStore {
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.credentials = credentials
        configuration.keyPrefix = prefix
        return try RedisStore(configuration: configuration)
    }

    @Test("requirepass and an ACL user: round trips, leases and the start-up check pass")
    func rightCredentials() async throws {
        let server = try await server()
        for store in [
            try store(server, .init(password: "admin-secret"), prefix: "admin:"),
            try store(server, .init(username: "tenant-a", password: "a-secret"), prefix: "tenant-a:"),
        ] {
            try await store.checkConnection()
            try await store.setData(Data("pixels".utf8), forKey: "k", extendedData: Data("etag".utf8))
            let entry = try #require(await store.dataWithExtendedData(forKey: "k"))
            #expect(entry.data == Data("pixels".utf8) && entry.extendedData == Data("etag".utf8))
            guard case .acquired(let lease) = await store.acquireLease(forKey: "k", duration: .seconds(5)) else {
                Issue.record("no lease")
                continue
            }
            #expect(await store.releaseLease(lease))
            #expect(store.statistics.failures == 0)
        }
        // Each tenant's value sits under its own prefix
        #expect(try await server.command(["EXISTS", "tenant-a:{" + SHA256.hexDigest("k") + "}:v"]) == .integer(1))
        #expect(try await server.command(["EXISTS", "admin:{" + SHA256.hexDigest("k") + "}:v"]) == .integer(1))
    }

    @Test("a wrong password or unknown user: a typed error at start-up; at run time a miss and a failed write, quickly, never a hang")
    func wrongCredentials() async throws {
        let server = try await server()
        for credentials in [
            RedisStore.Credentials(password: "wrong"),
            RedisStore.Credentials(username: "tenant-a", password: "wrong"),
            RedisStore.Credentials(username: "nobody", password: "a-secret"),
            nil,
        ] {
            let store = try store(server, credentials, prefix: "tenant-a:")
            let clock = ContinuousClock()
            let started = clock.now
            let error = await #expect(throws: RedisConnectionError.self) { try await store.checkConnection() }
            switch error {
            case .refused(_, let message)?:
                // No password at all: Redis answers NOAUTH to the PING.
                #expect(credentials == nil && message.hasPrefix("NOAUTH"))
            case .authenticationFailed(let endpoint, let message)?:
                #expect(endpoint == server.endpoint.description && message.hasPrefix("WRONGPASS"))
            default:
                Issue.record("unexpected \(String(describing: error))")
            }
            #expect(await store.data(forKey: "k") == nil)
            await #expect(throws: ImageError.self) { try await store.setData(Data([1]), forKey: "k", extendedData: nil) }
            #expect(await store.acquireLease(forKey: "k") == .unavailable)
            #expect(clock.now - started < .seconds(1).scaled)
        }
    }

    @Test("tenant isolation: the ACL user of one tenant cannot read or write another tenant's prefix (NOPERM is a miss)")
    func aclKeepsTenantsApart() async throws {
        let server = try await server()
        let admin = try store(server, .init(password: "admin-secret"), prefix: "tenant-b:")
        try await admin.setData(Data("b's image".utf8), forKey: "shared-url", extendedData: nil)
        // tenant-a, pointed at tenant-b's prefix, is refused by Redis itself
        let intruder = try store(server, .init(username: "tenant-a", password: "a-secret"), prefix: "tenant-b:")
        #expect(await intruder.data(forKey: "shared-url") == nil)
        await #expect(throws: ImageError.self) { try await intruder.setData(Data("forged".utf8), forKey: "shared-url", extendedData: nil) }
        #expect(await admin.data(forKey: "shared-url") == Data("b's image".utf8))
        // A refused command is the server's answer, not a failing node
        #expect(intruder.statistics.failures == 0 && intruder.statistics.breakerOpenings == 0)
    }

    @Test("credentials never appear in a description, a dump or the store's logs")
    func secretsNotPrinted() async throws {
        let credentials = RedisStore.Credentials(username: "tenant-a", password: "s3cr3t-password")
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in [credentials.description, credentials.debugDescription, String(reflecting: credentials), "\(credentials)", dumped] {
            #expect(!text.contains("s3cr3t-password"))
            #expect(text.contains("tenant-a"))
        }
        // The store logs its failures: none carries the password.
        let server = try await server()
        let logs = RecordingLogHandlerStore()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.credentials = .init(username: "tenant-a", password: "s3cr3t-password")
        configuration.logger = logs.logger()
        let store = try RedisStore(configuration: configuration)
        for _ in 0..<4 { _ = await store.data(forKey: "k") }
        #expect(!logs.lines.isEmpty)
        for line in logs.lines {
            #expect(!line.message.contains("s3cr3t") && !line.metadata.values.contains { $0.contains("s3cr3t") })
        }
    }
}
