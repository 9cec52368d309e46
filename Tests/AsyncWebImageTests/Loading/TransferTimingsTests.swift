import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// curl's per-transfer timings, HTTP version and connection reuse on the head.
@Suite("Transfer timings", .timeLimit(.minutes(1)))
struct TransferTimingsTests {
    @Test("the first load opens a connection, the second reuses it; phases are ordered; HTTP/1.1")
    func timingsAndReuse() async throws {
        // Given a server that answers after 30 ms, and one loader
        let server = try startedServer()
        defer { server.stop() }
        server.route("/t", .init(body: testBytes(5_000, seed: 41), delayBeforeHead: .milliseconds(30)))
        let loader = CurlDataLoader()
        // When it is loaded twice, one after the other
        let first = try #require(try await loader.loadData(for: DataRequest(url: server.url("/t"))).collect().head?.timings)
        let second = try #require(try await loader.loadData(for: DataRequest(url: server.url("/t"))).collect().head?.timings)
        // Then the first connected and the second reused the connection (the server agrees)
        #expect(!first.reusedConnection)
        #expect(second.reusedConnection)
        #expect(server.connectionsAccepted == 1)
        // and the phases come in order, the first byte after the server's 30 ms wait
        for timings in [first, second] {
            #expect(timings.httpVersion == "1.1")
            #expect(timings.nameLookup <= timings.connect || timings.connect == .zero)
            #expect(timings.connect <= timings.firstByte)
            #expect(timings.firstByte >= .milliseconds(30))
            #expect(timings.tlsHandshake == .zero)
        }
    }
}
