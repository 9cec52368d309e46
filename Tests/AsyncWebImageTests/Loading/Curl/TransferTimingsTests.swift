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

    @Test("the total time is on the completed transfer's timings: past the first byte, covering a trickled body; nil on the head")
    func totalTime() async throws {
        // Given a body sent in 4 pieces 40 ms apart
        let server = try startedServer()
        defer { server.stop() }
        server.route("/slow", .init(body: testBytes(4_000, seed: 43), trickle: .init(bytesPerPiece: 1_000, interval: .milliseconds(40))))
        let loader = CurlDataLoader()
        let transfer = loader.loadData(for: DataRequest(url: server.url("/slow")))
        #expect(transfer.completedTimings == nil)
        // When it is read to the end
        let result = try await transfer.collect()
        // Then the head has no total, the completed timings do: after the first byte, at least the 3 gaps
        #expect(result.head?.timings?.total == nil)
        let timings = try #require(transfer.completedTimings)
        let total = try #require(timings.total)
        #expect(total >= timings.firstByte)
        #expect(total >= .milliseconds(120))
        #expect(total < .seconds(10))
        // A failed transfer has none
        server.route("/missing", .status(404))
        let failed = loader.loadData(for: DataRequest(url: server.url("/missing")))
        _ = try? await failed.collect()
        #expect(failed.completedTimings == nil)
    }
}
