import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AWILocking

@Suite("DownloadCoalescer", .timeLimit(.minutes(2)))
struct DownloadCoalescerTests {
    @Test("100 concurrent subscribers share one request and get identical bytes")
    func hundredSubscribers() async throws {
        // Given a 200 KB body, held by the server until the test lets it go
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(200_000, seed: 7)
        let gate = Gate()
        server.route("/shared.jpg", gatedBy: gate, trickled(body, pieces: 10, every: .milliseconds(2)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/shared.jpg"))

        // When 100 tasks download it at once
        let results = try await withThrowingTaskGroup(of: CollectedDownload.self) { group in
            for _ in 0..<100 { group.addTask { try await coalescer.download(request).collect() } }
            #expect(await eventually { await coalescer.subscriberCount(for: request) == 100 })
            gate.open(1)
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then the server saw one request and everyone got the same, complete bytes
        #expect(server.statistics("/shared.jpg").requests == 1)
        #expect(await coalescer.transfersStarted == 1)
        #expect(results.count == 100)
        for result in results {
            #expect(result.completed == body)
            #expect(result.chunks == body)
            #expect(result.head?.statusCode == 200)
            #expect(result.events.first == "head" && result.events.last == "completed")
            #expect(result.progress.last == 200_000)
        }
        #expect(await eventually { await coalescer.transferCount == 0 })
    }
}

extension DownloadCoalescerTests {
    @Test("cancelling 1 of 2 subscribers mid-transfer leaves the other undisturbed")
    func cancelOneOfTwo() async throws {
        // Given a body trickled over about a second and two subscribers
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(100_000, seed: 11)
        server.route("/two", trickled(body, pieces: 20, every: .milliseconds(50)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/two"))
        let staying = Task { try await coalescer.download(request).collect() }
        let leaving = Task { try await coalescer.download(request).collect() }
        #expect(await eventually { await coalescer.subscriberCount(for: request) == 2 })
        #expect(await server.waitUntil("/two") { $0.bodyBytesSent > 10_000 })

        // When one of them is cancelled
        leaving.cancel()

        // Then it ends with CancellationError, the other gets everything, and the server served once without a disconnect
        await #expect(throws: CancellationError.self) { try await leaving.value }
        let result = try await staying.value
        #expect(result.completed == body)
        #expect(await server.waitUntil("/two") { $0.completed == 1 })
        let seen = server.statistics("/two")
        #expect(seen.requests == 1)
        #expect(seen.disconnects.isEmpty)
    }

    @Test("cancelling every subscriber closes the connection within 1 s")
    func cancelAll() async throws {
        // Given a body trickled over 10 s and three subscribers
        let server = try startedServer()
        defer { server.stop() }
        server.route("/long", trickled(testBytes(100_000), pieces: 100, every: .milliseconds(100)))
        let loader = CurlDataLoader()
        let coalescer = DownloadCoalescer(loader: loader)
        let request = DataRequest(url: server.url("/long"))
        let tasks = (0..<3).map { _ in Task { try await coalescer.download(request).collect() } }
        #expect(await eventually { await coalescer.subscriberCount(for: request) == 3 })
        #expect(await server.waitUntil("/long") { $0.bodyBytesSent > 2_000 })

        // When all are cancelled
        let cancelled = ContinuousClock.now
        for task in tasks { task.cancel() }

        // Then the server sees the client leave within 1 s, and nothing is left behind
        #expect(await server.waitUntil("/long", timeout: .seconds(1).scaled) { $0.disconnects.count == 1 })
        let disconnect = try #require(server.statistics("/long").disconnects.first)
        #expect(disconnect - cancelled < .seconds(1).scaled)
        for task in tasks { await #expect(throws: CancellationError.self) { try await task.value } }
        #expect(await eventually { await coalescer.transferCount == 0 })
        #expect(await eventually { loader.outstandingTransfers == 0 && loader.liveEasyHandles == 0 })
    }

    @Test("a subscriber that stops iterating leaves, and as the last one cancels the transfer")
    func stopIterating() async throws {
        // Given a long trickled body
        let server = try startedServer()
        defer { server.stop() }
        server.route("/stop", trickled(testBytes(100_000), pieces: 100, every: .milliseconds(100)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())

        // When the only subscriber breaks out of its loop after the first chunk
        for try await event in coalescer.download(DataRequest(url: server.url("/stop"))) {
            if case .chunk = event { break }
        }

        // Then the transfer is cancelled and the server sees the disconnect
        #expect(await server.waitUntil("/stop", timeout: .seconds(1).scaled) { $0.disconnects.count == 1 })
        #expect(await eventually { await coalescer.transferCount == 0 })
    }

    @Test("a late joiner receives the head and all bytes so far, then the rest")
    func lateJoiner() async throws {
        // Given a transfer under way: the server has sent 30 KB of 120 KB and
        // pauses until the test lets it go on, and the first subscriber has them
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(120_000, seed: 13)
        let gate = Gate()
        var response = trickled(body, pieces: 40, every: .milliseconds(30))
        response.pause = .init(afterBytes: 30_000, until: gate.wait)
        server.route("/late", response)
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/late"))
        let earlyReceived = Locked(0)
        let early = Task {
            var collected = CollectedDownload()
            for try await event in coalescer.download(request) {
                switch event {
                case .chunk(let data, _):
                    collected.chunks.append(data)
                    earlyReceived.withLock { $0 = collected.chunks.count }
                case .completed(let data): collected.completed = data
                default: break
                }
            }
            return collected
        }
        #expect(await server.waitUntil("/late") { $0.bodyBytesSent == 30_000 })
        #expect(await eventually { earlyReceived.value == 30_000 })

        // When a second subscriber joins, and then the server goes on
        var late = CollectedDownload()
        var firstChunk: Data?
        for try await event in coalescer.download(request) {
            switch event {
            case .head(let head):
                late.head = head
            case .chunk(let data, _):
                if firstChunk == nil {
                    firstChunk = data
                    gate.open(1)
                }
                late.chunks.append(data)
            case .progress(let received, _): late.progress.append(received)
            case .completed(let data): late.completed = data
            }
        }

        // Then it got the head, a first chunk holding the bytes so far, and the full body; one request served both
        #expect(late.head?.statusCode == 200)
        #expect(firstChunk == body.prefix(30_000))
        #expect(late.chunks == body)
        #expect(late.completed == body)
        let earlyResult = try await early.value
        #expect(earlyResult.chunks == body)
        #expect(earlyResult.completed == body)
        #expect(server.statistics("/late").requests == 1)
    }

    @Test("requests differing in Authorization never share a transfer")
    func credentialsKeyed() async throws {
        // Given a server answering each credential with its own body
        let server = try startedServer()
        defer { server.stop() }
        server.route("/private") { request in
            var response = trickled(Data("secret of \(request[header: "authorization"] ?? "nobody")".utf8), pieces: 2, every: .milliseconds(100))
            response.status = request[header: "authorization"] == nil ? 401 : 200
            return response
        }
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let url = server.url("/private")

        // When alice and bob load the same URL at the same time
        async let alice = coalescer.download(DataRequest(url: url, headers: httpFields(["Authorization": "alice"]))).collect()
        async let bob = coalescer.download(DataRequest(url: url, headers: httpFields(["authorization": "bob"]))).collect()
        let (forAlice, forBob) = try await (alice, bob)

        // Then there were two requests, each answered with its own body
        #expect(forAlice.completed == Data("secret of alice".utf8))
        #expect(forBob.completed == Data("secret of bob".utf8))
        #expect(server.statistics("/private").requests == 2)
        #expect(await coalescer.transfersStarted == 2)
    }

    @Test("an error reaches every subscriber, and the next request starts fresh")
    func errorToAll() async throws {
        // Given a failing path, answered when the test lets it
        let server = try startedServer()
        defer { server.stop() }
        let gate = Gate()
        server.route("/fail", gatedBy: gate, .init(status: 503, body: Data("busy".utf8)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/fail"))

        // When five subscribers wait on it
        let tasks = (0..<5).map { _ in Task { try await coalescer.download(request).collect() } }
        #expect(await eventually { await coalescer.subscriberCount(for: request) == 5 })
        gate.open(1)

        // Then all five get the typed error from one request
        for task in tasks {
            await #expect(throws: ImageError.httpStatus(503)) { try await task.value }
        }
        #expect(server.statistics("/fail").requests == 1)

        // And when the path is fixed and requested again, a new transfer serves it
        server.route("/fail", .ok(Data("fine".utf8)))
        let retry = try await coalescer.download(request).collect()
        #expect(retry.completed == Data("fine".utf8))
        #expect(server.statistics("/fail").requests == 2)
        #expect(await coalescer.transfersStarted == 2)
    }

    @Test("a waiting shared transfer is promoted when a higher-priority subscriber joins")
    func promotion() async throws {
        // Given a loader with one slot, held, and a low then a normal transfer waiting
        let server = try startedServer()
        defer { server.stop() }
        let gate = Gate()
        server.route("/hold", gatedBy: gate, .ok(Data("h".utf8)))
        server.route("/wait", .ok(Data("w".utf8)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader(configuration: {
            var configuration = CurlDataLoader.Configuration()
            configuration.maxConcurrentDownloads = 1
            return configuration
        }()))
        let hold = Task { try await coalescer.download(DataRequest(url: server.url("/hold"))).collect() }
        #expect(await server.waitUntil("/hold") { $0.requests == 1 })
        let lowRequest = DataRequest(url: server.url("/wait?shared"), priority: .low)
        let low = Task { try await coalescer.download(lowRequest).collect() }
        #expect(await eventually { await coalescer.subscriberCount(for: lowRequest) == 1 })
        let normal = Task { try await coalescer.download(DataRequest(url: server.url("/wait?other"))).collect() }
        #expect(await eventually { await coalescer.transferCount == 3 })

        // When a high-priority subscriber joins the low one's transfer, and the slot frees
        var highRequest = lowRequest
        highRequest.priority = .high
        let high = Task { try await coalescer.download(highRequest).collect() }
        #expect(await eventually { await coalescer.subscriberCount(for: lowRequest) == 2 })
        gate.open(1)
        for task in [hold, low, normal, high] { _ = try await task.value }

        // Then the shared transfer ran before the normal one, once for both subscribers
        #expect(server.statistics("/wait").targets == ["/wait?shared", "/wait?other"])
    }

    @Test("the request modifier adds headers that reach the server, or refuses with no request")
    func requestModifier() async throws {
        // Given a server
        let server = try startedServer()
        defer { server.stop() }
        server.route("/m", .ok(Data("m".utf8)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/m"))

        // When one download adds a header and another is refused
        let signed = DownloadModifiers(requestModifier: RequestModifier.headers(httpFields(["X-Signature": "s1"])))
        _ = try await coalescer.download(request, modifiers: signed).collect()
        let refusing = DownloadModifiers(requestModifier: RequestModifier { _ in nil })
        await #expect(throws: ImageError.requestRejected(request.url.absoluteString)) {
            _ = try await coalescer.download(request, modifiers: refusing).collect()
        }

        // Then the server saw the header once and nothing for the refused one
        let seen = server.statistics("/m")
        #expect(seen.requests == 1)
        #expect(seen.requestHeaders.first?["x-signature"] == "s1")
    }

    @Test("the response modifier rejects text/html for its subscriber only")
    func responseModifier() async throws {
        // Given an HTML page, held until both subscribers are in
        let server = try startedServer()
        defer { server.stop() }
        let page = Data("<html>not an image</html>".utf8)
        let gate = Gate()
        server.route("/page", gatedBy: gate, .ok(page, contentType: "text/html; charset=utf-8"))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/page"))

        // When a strict and a lenient subscriber share it
        let strict = DownloadModifiers(responseModifier: ResponseModifier.requireImageContentType)
        let rejected = Task { try await coalescer.download(request, modifiers: strict).collect() }
        let accepted = Task { try await coalescer.download(request).collect() }
        #expect(await eventually { await coalescer.subscriberCount(for: request) == 2 })
        gate.open(1)

        // Then the strict one is rejected and the other still gets the page from the one request
        await #expect(throws: ImageError.responseRejected("status 200, Content-Type text/html; charset=utf-8")) {
            try await rejected.value
        }
        #expect(try await accepted.value.completed == page)
        #expect(server.statistics("/page").requests == 1)
    }

    @Test("the decryptor turns the body into the bytes to decode; configuration defaults apply")
    func decryptor() async throws {
        // Given a base64 body and a coalescer whose default decryptor decodes base64
        let server = try startedServer()
        defer { server.stop() }
        let original = testBytes(3_000, seed: 17)
        server.route("/b64", .ok(original.base64EncodedData(), contentType: "text/plain"))
        var configuration = DownloadCoalescer.Configuration()
        configuration.modifiers.decryptor = ImageDataDecryptor.base64
        let coalescer = DownloadCoalescer(loader: CurlDataLoader(), configuration: configuration)

        // When it is downloaded
        let result = try await coalescer.download(DataRequest(url: server.url("/b64"))).collect()

        // Then the completion carries the decoded bytes, the chunks the raw ones
        #expect(result.completed == original)
        #expect(result.chunks == original.base64EncodedData())
    }

    @Test("the coalescer's own byte limit fails the transfer for everyone")
    func coalescerLimit() async throws {
        // Given a 2 MB body of which the server sends 300 KB and then stalls
        // until the client leaves, a loader whose own timeout is far away and
        // which declares a 64 KB limit it does not enforce itself (the
        // coalescer's guard is for such loaders). (A stall rather than a
        // trickle: when the test pool is busy the coalescer may read late,
        // and a trickle would have finished by then, proving nothing.)
        let server = try startedServer()
        defer { server.stop() }
        server.route("/big", .init(body: testBytes(2_000_000), framing: .chunked, fault: .stallAfter(bytes: 300_000)))
        var loaderConfiguration = CurlDataLoader.Configuration()
        loaderConfiguration.timeout = .seconds(60)
        let coalescer = DownloadCoalescer(
            loader: DeclaredLimitLoader(base: CurlDataLoader(configuration: loaderConfiguration), maxResponseBytes: 65_536)
        )

        // When it is downloaded
        // Then it fails as too large, and the coalescer itself stops the
        // transfer: only that can make the client leave the stalled server
        await #expect(throws: ImageError.tooLarge(.bytes, limit: 65_536, actual: nil)) {
            _ = try await coalescer.download(DataRequest(url: server.url("/big"))).collect()
        }
        #expect(await server.waitUntil("/big", timeout: .seconds(20)) { $0.disconnects.count == 1 })
        #expect(server.statistics("/big").completed == 0)
    }
}

/// A real loader that declares a byte limit without enforcing it (its base's
/// limit is the 64 MiB default), as a third-party ``DataLoading`` might.
private struct DeclaredLimitLoader: DataLoading {
    let base: CurlDataLoader
    let maxResponseBytes: Int64

    func loadData(for request: DataRequest) -> DataRequest.Transfer { base.loadData(for: request) }
}
