import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage

@Suite("CurlDataLoader", .timeLimit(.minutes(3)))
struct CurlDataLoaderTests {
    /// A loader with `configure` applied to the defaults.
    private func makeLoader(_ configure: (inout CurlDataLoader.Configuration) -> Void = { _ in }) -> CurlDataLoader {
        var configuration = CurlDataLoader.Configuration()
        configure(&configuration)
        return CurlDataLoader(configuration: configuration)
    }

    /// Loads `url` and returns the error it threw (nil if it succeeded).
    private func failure(_ loader: CurlDataLoader, _ request: DataRequest) async -> (any Error)? {
        do {
            _ = try await loader.loadData(for: request).collect()
            return nil
        } catch {
            return error
        }
    }

    @Test("documents its defaults")
    func defaults() {
        let configuration = CurlDataLoader.Configuration()
        #expect(configuration.maxConcurrentDownloads == 6)
        #expect(configuration.timeout == .seconds(15))
        #expect(configuration.transferTimeout == .seconds(60))
        #expect(configuration.destinationGuard == nil)
        #expect(configuration.maxRedirects == 10)
        #expect(configuration.allowedSchemes == ["http", "https"])
        #expect(configuration.maxResponseBytes == 64 * 1024 * 1024)
        #expect(configuration.executionOrder == .fifo)
        #expect(configuration.defaultHeaders[.accept] == "image/*,*/*;q=0.8")
        #expect(configuration.defaultHeaders[.userAgent] == "AsyncWebImage/\(CurlDataLoader.version)")
    }

    @Test("loads a body with its head, sends the default headers and reuses the connection")
    func loadsBody() async throws {
        // Given a server with a 300 KB image
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(300_000)
        server.route("/a.jpg", .ok(body, contentType: "image/jpeg"))
        let loader = makeLoader()

        // When it is loaded twice, one after the other
        let first = try await loader.loadData(for: DataRequest(url: server.url("/a.jpg"))).collect()
        let second = try await loader.loadData(for: DataRequest(url: server.url("/a.jpg"))).collect()

        // Then the bytes, the head and the request headers are right, and one connection served both
        #expect(first.body == body)
        #expect(second.body == body)
        #expect(first.head?.statusCode == 200)
        #expect(first.head?.mimeType == "image/jpeg")
        #expect(first.head?.expectedContentLength == 300_000)
        let seen = server.statistics("/a.jpg")
        #expect(seen.requests == 2)
        #expect(seen.requestHeaders.first?["user-agent"] == "AsyncWebImage/\(CurlDataLoader.version)")
        #expect(seen.requestHeaders.first?["accept"] == "image/*,*/*;q=0.8")
        #expect(server.connectionsAccepted == 1)
        #expect(await eventually { loader.outstandingTransfers == 0 && loader.liveEasyHandles == 0 })
    }

    @Test("sends request headers, replacing defaults of the same name in any case")
    func requestHeaders() async throws {
        // Given a server
        let server = try startedServer()
        defer { server.stop() }
        server.route("/h", .ok(Data("x".utf8)))

        // When a request carries its own Accept and a custom field
        let request = DataRequest(url: server.url("/h"), headers: httpFields(["accept": "image/webp", "X-Tenant": "42"]))
        _ = try await makeLoader().loadData(for: request).collect()

        // Then the server saw them, and no second Accept
        let headers = try #require(server.statistics("/h").requestHeaders.first)
        #expect(headers["accept"] == "image/webp")
        #expect(headers["x-tenant"] == "42")
    }

    @Test("status 404 ends with httpStatus(404)")
    func notFound() async throws {
        // Given a path that does not exist
        let server = try startedServer()
        defer { server.stop() }

        // When it is loaded
        let error = await failure(makeLoader(), DataRequest(url: server.url("/missing")))

        // Then the error is typed and the server saw one request
        #expect(error as? ImageError == .httpStatus(404))
        #expect(server.statistics("/missing").requests == 1)
    }

    @Test("reads chunked and close-delimited bodies", arguments: [
        LoopbackServer.Response.Framing.chunked, .closeDelimited,
    ])
    func framings(framing: LoopbackServer.Response.Framing) async throws {
        // Given a body sent without Content-Length, in pieces
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(150_000, seed: 3)
        server.route("/f", .init(body: body, framing: framing, trickle: .init(bytesPerPiece: 40_000, interval: .milliseconds(5))))

        // When it is loaded
        let result = try await makeLoader().loadData(for: DataRequest(url: server.url("/f"))).collect()

        // Then every byte arrives and no length was announced
        #expect(result.body == body)
        #expect(result.head?.expectedContentLength == nil)
        #expect(await server.waitUntil("/f") { $0.completed == 1 })
    }

    @Test("follows redirects and reports the final URL")
    func redirect() async throws {
        // Given /old redirecting to /new
        let server = try startedServer()
        defer { server.stop() }
        server.route("/old", .redirect(to: "/new", status: 301))
        server.route("/new", .ok(Data("new".utf8)))

        // When /old is loaded
        let result = try await makeLoader().loadData(for: DataRequest(url: server.url("/old"))).collect()

        // Then the body and URL are the target's, and both were requested once
        #expect(result.body == Data("new".utf8))
        #expect(result.head?.statusCode == 200)
        #expect(result.head?.url.path == "/new")
        #expect(server.statistics("/old").requests == 1)
        #expect(server.statistics("/new").requests == 1)
    }

    @Test("a redirect loop ends in tooManyRedirects after maxRedirects")
    func redirectLoop() async throws {
        // Given /a → /b → /a and a loader allowing 3 redirects
        let server = try startedServer()
        defer { server.stop() }
        server.route("/a", .redirect(to: "/b"))
        server.route("/b", .redirect(to: "/a"))

        // When /a is loaded
        let error = await failure(makeLoader { $0.maxRedirects = 3 }, DataRequest(url: server.url("/a")))

        // Then the error is typed and carries curl's code, and the loop was cut short
        guard case .network(let failure) = error as? ImageError else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .tooManyRedirects)
        #expect(failure.code == 47)
        #expect(server.statistics("/a").requests + server.statistics("/b").requests == 4)
    }

    @Test("times out within timeout + 1 s on a server that never answers")
    func stallTimeout() async throws {
        // Given a server that accepts and never answers, and a 1 s timeout
        let server = try startedServer()
        defer { server.stop() }
        server.route("/stall", .stall)
        let loader = makeLoader { $0.timeout = .seconds(1) }

        // When it is loaded
        let start = ContinuousClock.now
        let error = await failure(loader, DataRequest(url: server.url("/stall")))
        let elapsed = ContinuousClock.now - start

        // Then it fails with .timeout after about a second, and the server sees the client leave
        guard case .timeout = error as? ImageError else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(elapsed >= .milliseconds(900))
        // When curl gave up is when the server saw it leave (independent of task scheduling)
        #expect(await server.waitUntil("/stall") { $0.disconnects.count == 1 })
        let gaveUp = try #require(server.statistics("/stall").disconnects.first)
        #expect(gaveUp - start < .seconds(2).scaled)
    }

    @Test("a stall in the middle of the body times out too")
    func midBodyStall() async throws {
        // Given a server that sends 10 KB of a 100 KB body, then nothing
        let server = try startedServer()
        defer { server.stop() }
        server.route("/half", .init(body: testBytes(100_000), fault: .stallAfter(bytes: 10_000)))

        // When it is loaded with a 1 s timeout
        let start = ContinuousClock.now
        let error = await failure(makeLoader { $0.timeout = .seconds(1) }, DataRequest(url: server.url("/half")))

        // Then it times out within timeout + 1 s
        guard case .timeout = error as? ImageError else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(await server.waitUntil("/half") { $0.disconnects.count == 1 })
        let gaveUp = try #require(server.statistics("/half").disconnects.first)
        #expect(gaveUp - start < .seconds(2).scaled)
    }

    @Test("maxResponseBytes refuses an announced length over the limit at the head")
    func announcedTooLarge() async throws {
        // Given a 2 MB body trickled slowly, and a 1 MB limit
        let server = try startedServer()
        defer { server.stop() }
        let size = 2 * 1024 * 1024
        server.route("/big", trickled(testBytes(size), pieces: 64, every: .milliseconds(10)))

        // When it is loaded
        let error = await failure(makeLoader { $0.maxResponseBytes = 1024 * 1024 }, DataRequest(url: server.url("/big")))

        // Then it fails with the announced size before the server sent it all
        #expect(error as? ImageError == .tooLarge(.bytes, limit: 1024 * 1024, actual: Int64(size)))
        #expect(await server.waitUntil("/big") { $0.disconnects.count == 1 })
        #expect(server.statistics("/big").bodyBytesSent < size / 2)
    }

    @Test("maxResponseBytes aborts an unannounced body as soon as it passes the limit")
    func streamedTooLarge() async throws {
        // Given a 4 MB chunked body in 64 KB pieces, and a 256 KB limit
        let server = try startedServer()
        defer { server.stop() }
        let size = 4 * 1024 * 1024
        server.route("/stream", .init(
            body: testBytes(size), framing: .chunked, trickle: .init(bytesPerPiece: 65_536, interval: .milliseconds(10))
        ))

        // When it is loaded
        let error = await failure(makeLoader { $0.maxResponseBytes = 256 * 1024 }, DataRequest(url: server.url("/stream")))

        // Then it fails as too large, and the server saw the client leave early
        #expect(error as? ImageError == .tooLarge(.bytes, limit: 256 * 1024, actual: nil))
        #expect(await server.waitUntil("/stream") { $0.disconnects.count == 1 })
        #expect(server.statistics("/stream").bodyBytesSent < size / 2)
    }

    @Test("file:// is refused by default and loads when enabled")
    func fileScheme() async throws {
        // Given a file
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("awi-\(UUID().uuidString).bin")
        let body = testBytes(70_000, seed: 9)
        try body.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        // When a default loader and a loader allowing file load it
        let refused = await failure(makeLoader(), DataRequest(url: url))
        let loaded = try await makeLoader { $0.allowedSchemes.insert("file") }.loadData(for: DataRequest(url: url)).collect()

        // Then the first refuses with a typed error and the second reads the bytes
        #expect(refused as? ImageError == .unsupportedScheme("file"))
        #expect(loaded.body == body)
        #expect(loaded.head?.expectedContentLength == 70_000)
    }

    @Test("a redirect to a scheme that is not allowed is refused")
    func redirectToFile() async throws {
        // Given a redirect to file:///etc/hostname
        let server = try startedServer()
        defer { server.stop() }
        server.route("/to-file", .redirect(to: "file:///etc/hostname"))

        // When it is loaded with the default schemes
        let error = await failure(makeLoader(), DataRequest(url: server.url("/to-file")))

        // Then it fails as a refused redirect naming the scheme, rather than reading the file
        guard case .network(let failure) = error as? ImageError else {
            Issue.record("expected a refused redirect, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .redirectRefused)
        #expect(failure.message.contains("\"file\""), "\(failure.message)")
    }

    @Test("cancelling the consumer closes the connection within 1 s")
    func cancellation() async throws {
        // Given a body trickled over 10 s
        let server = try startedServer()
        defer { server.stop() }
        server.route("/slow", trickled(testBytes(100_000), pieces: 100, every: .milliseconds(100)))
        let loader = makeLoader()
        let transfer = loader.loadData(for: DataRequest(url: server.url("/slow")))
        let task = Task {
            var received = 0
            for try await event in transfer {
                if case .chunk(let data) = event { received += data.count }
            }
            return received
        }

        // When the consumer is cancelled after the first bytes arrive
        #expect(await server.waitUntil("/slow") { $0.bodyBytesSent >= 2_000 })
        let cancelled = ContinuousClock.now
        task.cancel()

        // Then the task ends with CancellationError, the server sees the disconnect within 1 s, and nothing is left
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await server.waitUntil("/slow", timeout: .seconds(1).scaled) { $0.disconnects.count == 1 })
        let disconnect = try #require(server.statistics("/slow").disconnects.first)
        #expect(disconnect - cancelled < .seconds(1).scaled)
        #expect(await eventually { loader.outstandingTransfers == 0 && loader.liveEasyHandles == 0 })
    }

    @Test("maxConcurrentDownloads 2: never more than 2 in flight, waiting ones start LIFO")
    func concurrencyAndLIFO() async throws {
        // Given a loader with 2 slots in LIFO order, and two transfers holding them until released
        let server = try startedServer()
        defer { server.stop() }
        let gate = Gate()
        server.route("/hold", gatedBy: gate, .ok(Data("h".utf8)))
        server.route("/wait", .init(body: Data("w".utf8), delayBeforeHead: .milliseconds(50)))
        let loader = makeLoader {
            $0.maxConcurrentDownloads = 2
            $0.executionOrder = .lifo
        }
        let holders = (1...2).map { loader.loadData(for: DataRequest(url: server.url("/hold?\($0)"))) }
        #expect(await server.waitUntil("/hold") { $0.requests == 2 })

        // When four more are submitted in order 1, 2, 3, 4
        let waiting = (1...4).map { loader.loadData(for: DataRequest(url: server.url("/wait?\($0)"))) }
        gate.open(2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for transfer in holders + waiting { group.addTask { _ = try await transfer.collect() } }
            try await group.waitForAll()
        }

        // Then the server never had more than 2 at once, and the waiting ones came newest first
        #expect(server.maxInFlight == 2)
        // (two start together, so the order within each pair is the network's)
        let targets = server.statistics("/wait").targets
        #expect(targets.count == 4)
        #expect(Set(targets.prefix(2)) == ["/wait?4", "/wait?3"])
        #expect(Set(targets.suffix(2)) == ["/wait?2", "/wait?1"])
    }

    @Test("FIFO by default, high priority first, and a waiting transfer can be promoted")
    func priorities() async throws {
        // Given one slot held by a transfer until released
        let server = try startedServer()
        defer { server.stop() }
        let gate = Gate()
        server.route("/hold", gatedBy: gate, .ok(Data("h".utf8)))
        server.route("/wait", .ok(Data("w".utf8)))
        let loader = makeLoader { $0.maxConcurrentDownloads = 1 }
        let holder = loader.loadData(for: DataRequest(url: server.url("/hold")))
        #expect(await server.waitUntil("/hold") { $0.requests == 1 })

        // When low, normal, normal, high are queued and the low one is then promoted to high
        let low = loader.loadData(for: DataRequest(url: server.url("/wait?low"), priority: .low))
        let normal1 = loader.loadData(for: DataRequest(url: server.url("/wait?n1")))
        let normal2 = loader.loadData(for: DataRequest(url: server.url("/wait?n2")))
        let high = loader.loadData(for: DataRequest(url: server.url("/wait?high"), priority: .high))
        low.setPriority(.high)
        gate.open(1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for transfer in [holder, low, normal1, normal2, high] { group.addTask { _ = try await transfer.collect() } }
            try await group.waitForAll()
        }

        // Then high priority came first (the original high, then the promoted low), then FIFO
        #expect(server.statistics("/wait").targets == ["/wait?high", "/wait?low", "/wait?n1", "/wait?n2"])
    }

    @Test("a reset mid-body and a short body are connection failures")
    func brokenBodies() async throws {
        // Given a reset after 20 KB and a Content-Length larger than the body
        let server = try startedServer()
        defer { server.stop() }
        server.route("/reset", .init(body: testBytes(100_000), fault: .resetAfter(bytes: 20_000)))
        server.route("/short", .init(body: testBytes(50_000), framing: .declaredLength(80_000)))
        let loader = makeLoader()

        // When both are loaded
        let reset = await failure(loader, DataRequest(url: server.url("/reset")))
        let short = await failure(loader, DataRequest(url: server.url("/short")))

        // Then both fail as lost connections with curl's code
        for error in [reset, short] {
            guard case .network(let failure) = error as? ImageError else {
                Issue.record("expected a network error, got \(String(describing: error))")
                continue
            }
            #expect(failure.kind == .connectionLost)
            #expect(failure.code != 0)
            #expect(!failure.message.isEmpty)
        }
    }

    @Test("cannot connect is typed")
    func cannotConnect() async throws {
        // Given a port nobody listens on (a server that was stopped)
        let server = try startedServer()
        let url = server.url("/gone")
        server.stop()

        // When it is loaded
        let error = await failure(makeLoader(), DataRequest(url: url))

        // Then the failure says so
        guard case .network(let failure) = error as? ImageError else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .cannotConnect)
        #expect(failure.code == 7)
    }

    @Test("a slow consumer pauses the transfer instead of buffering the body")
    func backPressure() async throws {
        // Given a 24 MB body and a loader buffering at most 64 KB for its consumer
        let server = try startedServer()
        defer { server.stop() }
        let size = 24 * 1024 * 1024
        let body = testBytes(size, seed: 5)
        server.route("/huge", .ok(body))
        let loader = makeLoader { $0.maxBufferedBytes = 65_536 }

        // When the consumer takes the first chunk and then waits
        var iterator = loader.loadData(for: DataRequest(url: server.url("/huge"))).makeAsyncIterator()
        var received = Data()
        while received.isEmpty, let event = try await iterator.next() {
            if case .chunk(let data) = event { received.append(data) }
        }
        try await Task.sleep(for: .milliseconds(500))

        // Then the server could not send everything (the socket is not read), and the rest still arrives intact
        #expect(server.statistics("/huge").bodyBytesSent < size)
        while let event = try await iterator.next() {
            if case .chunk(let data) = event { received.append(data) }
        }
        #expect(received == body)
    }

    @Test("cookies are kept and sent only with handleCookies")
    func cookies() async throws {
        // Given a path that sets a cookie and one that reads it
        let server = try startedServer()
        defer { server.stop() }
        server.route("/set", .init(headers: [("Set-Cookie", "session=abc; Path=/")], body: Data("s".utf8)))
        server.route("/read", .ok(Data("r".utf8)))
        let loader = makeLoader()

        // When both are loaded without, then with, handleCookies
        _ = try await loader.loadData(for: DataRequest(url: server.url("/set"))).collect()
        _ = try await loader.loadData(for: DataRequest(url: server.url("/read"))).collect()
        _ = try await loader.loadData(for: DataRequest(url: server.url("/set"), handleCookies: true)).collect()
        _ = try await loader.loadData(for: DataRequest(url: server.url("/read"), handleCookies: true)).collect()

        // Then only the second read carried the cookie
        let reads = server.statistics("/read").requestHeaders
        #expect(reads.count == 2)
        #expect(reads.first?["cookie"] == nil)
        #expect(reads.last?["cookie"] == "session=abc")
    }

    @Test("a conditional request gets the 304 head with no body")
    func notModified() async throws {
        // Given a body with an ETag
        let server = try startedServer()
        defer { server.stop() }
        server.route("/e", .init(body: testBytes(1_000), etag: "\"v1\""))
        let loader = makeLoader()

        // When it is loaded, then loaded again with If-None-Match
        let first = try await loader.loadData(for: DataRequest(url: server.url("/e"))).collect()
        let etag = try #require(first.head?.headers[.eTag])
        let second = try await loader.loadData(for: DataRequest(url: server.url("/e"), headers: [.ifNoneMatch: etag])).collect()

        // Then the second is a bodiless 304
        #expect(first.body.count == 1_000)
        #expect(second.head?.statusCode == 304)
        #expect(second.body.isEmpty)
    }

    /// `data` gzip-compressed by the system's gzip.
    private func gzipped(_ data: Data) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("awi-\(UUID().uuidString)")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = ["-c", "-9", input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return compressed
    }

    @Test("a gzip body is decoded, and the byte limit applies to the decoded bytes")
    func gzipBomb() async throws {
        // Given 4 MB of zeros served gzip-encoded (a few KB on the wire)
        let server = try startedServer()
        defer { server.stop() }
        let plain = Data(count: 4 * 1024 * 1024)
        let compressed = try gzipped(plain)
        #expect(compressed.count < 64 * 1024)
        server.route("/z", .init(headers: [("Content-Encoding", "gzip")], body: compressed))

        // When it is loaded with a 64 MiB limit and with a 1 MiB limit
        let loaded = try await makeLoader().loadData(for: DataRequest(url: server.url("/z"))).collect()
        let error = await failure(makeLoader { $0.maxResponseBytes = 1024 * 1024 }, DataRequest(url: server.url("/z")))

        // Then the first gets the decoded bytes (no length promised), the second stops at the limit
        #expect(loaded.body == plain)
        #expect(loaded.head?.expectedContentLength == nil)
        #expect(server.statistics("/z").requestHeaders.first?["accept-encoding"]?.contains("gzip") == true)
        #expect(error as? ImageError == .tooLarge(.bytes, limit: 1024 * 1024, actual: nil))
    }
}
