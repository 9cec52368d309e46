import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// A real `redis-server` serving TLS only (`--port 0 --tls-port`, client
/// certificates required), with certificates `openssl` makes in the test.
@Suite("RedisStore: TLS", .serialized, .timeLimit(.minutes(1)))
struct RedisTLSTests {
    private func store(_ server: RedisServer, host: String = "127.0.0.1", _ tls: RedisStore.TLS) throws -> RedisStore {
        var configuration = RedisStore.Configuration(endpoints: [.init(host: host, port: server.port)])
        configuration.tls = tls
        configuration.keyPrefix = "tls:"
        return try RedisStore(configuration: configuration)
    }

    @Test("the CA, a client certificate and the name checked: round trips by IP address, by host name and with a server name")
    func roundTrip() async throws {
        let certificates = try TestCertificates()
        let server = try await RedisServer(tls: certificates)
        let trusted = RedisStore.TLS(caFile: certificates.caBundle, certificateFile: certificates.clientCertificate, privateKeyFile: certificates.clientKey)
        var named = trusted
        named.serverName = "localhost"
        for store in [try store(server, trusted), try store(server, host: "localhost", trusted), try store(server, named)] {
            try await store.checkConnection()
            try await store.setData(Data(repeating: 7, count: 200_000), forKey: "k", extendedData: nil)
            #expect(await store.data(forKey: "k") == Data(repeating: 7, count: 200_000))
            #expect(store.statistics.failures == 0 && store.statistics.hits == 1)
        }
        #expect(try await server.command(["DBSIZE"]) == .integer(1))
        // A certificate naming localhost only: reached by IP, the server name makes it acceptable
        let nameOnly = try await RedisServer(tls: certificates, certificate: certificates.nameOnlyServerCertificate)
        try await store(nameOnly, named).checkConnection()
        try await store(nameOnly, host: "localhost", trusted).checkConnection()
    }

    @Test("an untrusted server, a wrong server name, a client certificate the server refuses, no client certificate, unreadable files: a typed TLS error at start-up, a quick miss at run time")
    func badCertificates() async throws {
        let certificates = try TestCertificates()
        // Its certificate names localhost only, so reaching it by IP needs the name
        let server = try await RedisServer(tls: certificates, certificate: certificates.nameOnlyServerCertificate)
        let client = (certificate: certificates.clientCertificate, key: certificates.clientKey)
        let cases: [(String, RedisStore.TLS)] = [
            ("untrusted CA", .init(caFile: certificates.otherCABundle, certificateFile: client.certificate, privateKeyFile: client.key)),
            ("wrong name", .init(caFile: certificates.caBundle, certificateFile: client.certificate, privateKeyFile: client.key, serverName: "redis.example.com")),
            ("no name for an IP address", .init(caFile: certificates.caBundle, certificateFile: client.certificate, privateKeyFile: client.key)),
            ("stranger's client certificate", .init(caFile: certificates.caBundle, certificateFile: certificates.strangerCertificate, privateKeyFile: client.key, serverName: "localhost")),
            ("no client certificate", .init(caFile: certificates.caBundle, serverName: "localhost")),
            ("missing CA file", .init(caFile: certificates.directory + "/absent.pem")),
        ]
        for (name, tls) in cases {
            let store = try store(server, tls)
            let clock = ContinuousClock()
            let started = clock.now
            let error = await #expect(throws: RedisConnectionError.self, "\(name)") { try await store.checkConnection() }
            // A server that refuses the client's certificate may close the
            // connection after the client's side of the handshake is done.
            switch error {
            case .tlsFailed?: break
            case .unreachable?: #expect(name.contains("client certificate"), "\(name): \(String(describing: error))")
            default: Issue.record("\(name): \(String(describing: error))")
            }
            #expect(await store.data(forKey: "k") == nil, "\(name)")
            await #expect(throws: ImageError.self, "\(name)") { try await store.setData(Data([1]), forKey: "k", extendedData: nil) }
            #expect(clock.now - started < .seconds(1).scaled, "\(name)")
        }
        #expect(try await server.command(["DBSIZE"]) == .integer(0))
        // The name is checked even when the certificate also lists the
        // address connected to (OpenSSL's SSL_set1_host)
        let full = try await RedisServer(tls: certificates)
        let named = try store(full, .init(caFile: certificates.caBundle, certificateFile: client.certificate, privateKeyFile: client.key, serverName: "redis.example.com"))
        let error = await #expect(throws: RedisConnectionError.self) { try await named.checkConnection() }
        guard case .tlsFailed(_, let message)? = error else { Issue.record("expected tlsFailed, got \(String(describing: error))"); return }
        #expect(message.contains("hostname mismatch"))
    }

    @Test("a plain-TCP client against the TLS port: a miss within the lookup budget, not a hang")
    func plainAgainstTLS() async throws {
        let certificates = try TestCertificates()
        let server = try await RedisServer(tls: certificates)
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.lookupBudget = .milliseconds(200)
        let store = try RedisStore(configuration: configuration)
        let clock = ContinuousClock()
        let elapsed = await clock.measure { #expect(await store.data(forKey: "k") == nil) }
        #expect(elapsed < .milliseconds(200) + .milliseconds(300).scaled)
    }
}
