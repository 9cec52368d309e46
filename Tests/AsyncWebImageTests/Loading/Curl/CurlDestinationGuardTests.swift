import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

@Suite("CurlDataLoader destination guard", .timeLimit(.minutes(1)))
struct CurlDestinationGuardTests {
    static func loader(_ guardian: CurlDataLoader.DestinationGuard?) -> CurlDataLoader {
        var configuration = CurlDataLoader.Configuration()
        configuration.destinationGuard = guardian
        configuration.timeout = .seconds(5)
        return CurlDataLoader(configuration: configuration)
    }

    @Test("a guarded loader refuses loopback before any byte reaches the server")
    func refusesLoopback() async throws {
        // Given a server on 127.0.0.1 and a loader with the default guard
        let server = try startedServer()
        defer { server.stop() }
        server.route("/secret", .ok(Data("internal".utf8)))
        // When it is asked for the internal URL
        await #expect(throws: ImageError.destinationNotAllowed("127.0.0.1")) {
            _ = try await Self.loader(CurlDataLoader.DestinationGuard()).loadData(for: DataRequest(url: server.url("/secret"))).collect()
        }
        // Then the server never saw a connection
        #expect(server.statistics("/secret").requests == 0)
        #expect(server.connectionsAccepted == 0)
    }

    @Test("explicitly allowed addresses load; a redirect to another internal address is refused")
    func redirects() async throws {
        let server = try startedServer()
        defer { server.stop() }
        server.route("/ok", .ok(Data("fine".utf8)))
        server.route("/hop", .redirect(to: "http://127.0.0.2:\(server.port)/ok"))
        let loopback = try #require(CurlDataLoader.DestinationGuard.IPAddress("127.0.0.1"))
        let loader = Self.loader(CurlDataLoader.DestinationGuard(allowed: [loopback]))

        let body = try await loader.loadData(for: DataRequest(url: server.url("/ok"))).collect().body
        #expect(body == Data("fine".utf8))

        await #expect(throws: ImageError.destinationNotAllowed("127.0.0.2")) {
            _ = try await loader.loadData(for: DataRequest(url: server.url("/hop"))).collect()
        }
        #expect(server.statistics("/hop").requests == 1)
        #expect(server.statistics("/ok").requests == 1)
    }

    @Test("without a guard (the default) loopback loads")
    func offByDefault() async throws {
        let server = try startedServer()
        defer { server.stop() }
        server.route("/a", .ok(Data("a".utf8)))
        #expect(CurlDataLoader.Configuration().destinationGuard == nil)
        let body = try await Self.loader(nil).loadData(for: DataRequest(url: server.url("/a"))).collect().body
        #expect(body == Data("a".utf8))
    }
}
