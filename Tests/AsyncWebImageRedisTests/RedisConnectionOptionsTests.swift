import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// A Unix socket and a database number, on a real `redis-server`.
@Suite("RedisStore: Unix sockets and databases", .serialized, .timeLimit(.minutes(1)))
struct RedisConnectionOptionsTests {
    @Test("a Unix socket: round trips and leases, the values in the server the socket belongs to")
    func unixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("awi-redis-\(UUID().uuidString.prefix(8)).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await RedisServer(arguments: ["--unixsocket", path, "--unixsocketperm", "700"])
        let store = try RedisStore(configuration: .init(endpoints: [.init(unixSocketPath: path)]))
        try await store.checkConnection()
        try await store.setData(Data("over a socket".utf8), forKey: "k", extendedData: nil)
        #expect(await store.data(forKey: "k") == Data("over a socket".utf8))
        guard case .acquired(let lease) = await store.acquireLease(forKey: "k") else { Issue.record("no lease"); return }
        #expect(await store.releaseLease(lease))
        #expect(try await server.command(["DBSIZE"]) == .integer(1))
        #expect(store.statistics.failures == 0)
        #expect(RedisStore.Endpoint(unixSocketPath: path).description == "unix:" + path)
    }

    @Test("a database number: values land in that database only; one the server does not have is a typed error at start-up")
    func database() async throws {
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.database = 3
        let store = try RedisStore(configuration: configuration)
        try await store.checkConnection()
        try await store.setData(Data([3]), forKey: "k", extendedData: nil)
        #expect(await store.data(forKey: "k") == Data([3]))
        // Database 0 (the admin connection's, and a default store's) has nothing
        #expect(try await server.command(["DBSIZE"]) == .integer(0))
        #expect(try await RedisStore(configuration: .init(endpoints: [server.endpoint])).data(forKey: "k") == nil)
        // Database 99 of 16
        configuration.database = 99
        let outOfRange = try RedisStore(configuration: configuration)
        let error = await #expect(throws: RedisConnectionError.self) { try await outOfRange.checkConnection() }
        guard case .refused(_, let message)? = error else { Issue.record("expected refused, got \(String(describing: error))"); return }
        #expect(message.contains("DB index is out of range"))
        #expect(await outOfRange.data(forKey: "k") == nil)
    }
}
