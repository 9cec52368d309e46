import Foundation
import LoopbackServer
import Testing

@Suite("LoopbackServer", .timeLimit(.minutes(2)))
struct LoopbackServerTests {
    @Test("serves static bodies with their headers, keeps the connection alive, and counts")
    func staticBodies() throws {
        // Given a server with one route
        let server = try startedServer()
        defer { server.stop() }
        server.route("/a.png", .ok(Data("png!".utf8), contentType: "image/png"))
        let client = try RawConnection(port: server.port)

        // When two requests go over one connection, one of them to an unknown path
        client.get("/a.png?x=1", ["X-Test: yes"])
        let first = client.readResponse()
        client.get("/nothing")
        let second = client.readResponse()

        // Then both are answered on the one connection and counted per path
        #expect(first?.head.hasPrefix("HTTP/1.1 200") == true)
        #expect(first?.head.contains("Content-Type: image/png") == true)
        #expect(first?.head.contains("Content-Length: 4") == true)
        #expect(first?.body == Data("png!".utf8))
        #expect(second?.head.hasPrefix("HTTP/1.1 404") == true)
        #expect(server.connectionsAccepted == 1)
        let seen = server.statistics("/a.png")
        #expect(seen.requests == 1)
        #expect(seen.completed == 1)
        #expect(seen.targets == ["/a.png?x=1"])
        #expect(seen.requestHeaders.first?["x-test"] == "yes")
        #expect(server.requestLog == ["/a.png?x=1", "/nothing"])
    }

    @Test("chunked bodies are framed as chunks")
    func chunked() throws {
        // Given a chunked route sent in 3-byte pieces
        let server = try startedServer()
        defer { server.stop() }
        server.route("/c", .init(body: Data("abcdefgh".utf8), framing: .chunked, trickle: .init(bytesPerPiece: 3, interval: .milliseconds(1))))
        let client = try RawConnection(port: server.port)

        // When it is requested
        client.get("/c")
        var wire = ""
        for _ in 0..<50 where !wire.hasSuffix("0\r\n\r\n") {
            wire = String(decoding: client.read(atLeast: client.received.count + 1), as: UTF8.self)
        }

        // Then the head says chunked and the body is the three chunks and the terminator
        #expect(wire.contains("Transfer-Encoding: chunked"))
        #expect(wire.hasSuffix("\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n2\r\ngh\r\n0\r\n\r\n"))
    }

    @Test("close-delimited and lying lengths end with the server closing", arguments: [
        LoopbackServer.Response.Framing.closeDelimited, .declaredLength(100), .declaredLength(2),
    ])
    func closingFramings(framing: LoopbackServer.Response.Framing) throws {
        // Given a route with that framing
        let server = try startedServer()
        defer { server.stop() }
        server.route("/x", .init(body: Data("0123456789".utf8), framing: framing))
        let client = try RawConnection(port: server.port)

        // When it is requested and read to the end
        client.get("/x")
        let wire = String(decoding: client.readToEnd(), as: UTF8.self)

        // Then the whole body came, the length header is as configured, and the server closed
        #expect(client.sawEOF)
        #expect(wire.hasSuffix("\r\n\r\n0123456789"))
        #expect(wire.contains("Connection: close"))
        switch framing {
        case .declaredLength(let length): #expect(wire.contains("Content-Length: \(length)\r\n"))
        default: #expect(!wire.contains("Content-Length"))
        }
    }

    @Test("ETag: If-None-Match gets 304 with no body; redirects carry Location")
    func conditionalAndRedirect() throws {
        // Given an entity with an ETag and a redirect
        let server = try startedServer()
        defer { server.stop() }
        server.route("/e", .init(body: Data("entity".utf8), etag: "\"7\""))
        server.route("/r", .redirect(to: "/e", status: 307))
        let client = try RawConnection(port: server.port)

        // When the entity is asked for conditionally, then the redirect
        client.get("/e", ["If-None-Match: \"7\""])
        let conditional = client.readResponse()
        client.get("/r")
        let redirect = client.readResponse()

        // Then the first is a bodiless 304 and the second points to /e
        #expect(conditional?.head.hasPrefix("HTTP/1.1 304") == true)
        #expect(conditional?.head.contains("ETag: \"7\"") == true)
        #expect(conditional?.body.isEmpty == true)
        #expect(redirect?.head.hasPrefix("HTTP/1.1 307") == true)
        #expect(redirect?.head.contains("Location: /e") == true)
    }

    @Test("a reset mid-body reaches the client as ECONNRESET after the promised bytes")
    func reset() throws {
        // Given a route that resets after 1000 bytes
        let server = try startedServer()
        defer { server.stop() }
        server.route("/reset", .init(body: Data(count: 100_000), fault: .resetAfter(bytes: 1_000)))
        let client = try RawConnection(port: server.port)

        // When it is requested and read
        client.get("/reset")
        let wire = client.readToEnd()

        // Then the client saw a reset, not a clean close, and at most head plus 1000 bytes
        #expect(client.wasReset)
        #expect(wire.count < 1_200)
        #expect(server.statistics("/reset").bodyBytesSent == 1_000)
    }

    @Test("a stall lasts until the client leaves, and the disconnect is recorded with its time")
    func stallAndDisconnect() async throws {
        // Given a stalling route with a client waiting on it
        let server = try startedServer()
        defer { server.stop() }
        server.route("/stall", .init(body: Data(count: 10), fault: .stallAfter(bytes: 4)))
        let client = try RawConnection(port: server.port)
        client.get("/stall")
        _ = client.read(atLeast: 10)
        #expect(await server.waitUntil("/stall") { $0.inFlight == 1 })

        // When the client leaves
        let left = ContinuousClock.now
        client.shutdownBoth()

        // Then the server records one disconnect soon after
        #expect(await server.waitUntil("/stall", timeout: .seconds(2).scaled) { $0.disconnects.count == 1 })
        let seen = server.statistics("/stall")
        #expect(seen.inFlight == 0)
        #expect(seen.completed == 0)
        #expect(seen.bodyBytesSent == 4)
        #expect(try #require(seen.disconnects.first) - left < .milliseconds(500).scaled)
    }

    @Test("delays hold the head, and in-flight requests are counted")
    func delaysAndConcurrency() async throws {
        // Given a route delayed by 200 ms
        let server = try startedServer()
        defer { server.stop() }
        server.route("/slow", .init(body: Data("s".utf8), delayBeforeHead: .milliseconds(200)))
        let clients = try (0..<3).map { _ in try RawConnection(port: server.port) }

        // When three clients ask at once
        let start = ContinuousClock.now
        for client in clients { client.get("/slow") }
        let responses = clients.map { $0.readResponse() }

        // Then all waited for the delay and the server saw three in flight
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(responses.allSatisfy { $0?.body == Data("s".utf8) })
        #expect(server.statistics("/slow").maxInFlight == 3)
        #expect(server.maxInFlight == 3)
    }

    @Test("stop closes open connections and returns promptly")
    func stop() throws {
        // Given a client on a stalled request
        let server = try startedServer()
        server.route("/stall", .stall)
        let client = try RawConnection(port: server.port)
        client.get("/stall")

        // When the server stops
        let start = ContinuousClock.now
        server.stop()

        // Then it returned quickly, the client sees the connection end, and new connections are refused
        #expect(ContinuousClock.now - start < .seconds(2).scaled)
        client.readToEnd()
        #expect(client.sawEOF || client.wasReset)
        #expect(throws: RawConnection.ConnectError.self) { _ = try RawConnection(port: server.port) }
    }

    @Test("connections beyond the bound are answered 503")
    func boundedConnections() throws {
        // Given a server for at most one connection, which is taken
        let server = LoopbackServer(maxConnections: 1)
        try server.start()
        defer { server.stop() }
        server.route("/ok", .ok(Data("ok".utf8)))
        let first = try RawConnection(port: server.port)
        first.get("/ok")
        #expect(first.readResponse()?.body == Data("ok".utf8))

        // When a second connection comes
        let second = try RawConnection(port: server.port)
        let wire = String(decoding: second.readToEnd(), as: UTF8.self)

        // Then it is refused with 503
        #expect(wire.hasPrefix("HTTP/1.1 503"))
        #expect(server.connectionsAccepted == 1)
    }
}
