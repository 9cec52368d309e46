import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AWILocking

/// Retries below the coalescer: one sequence of attempts per shared
/// download, transient failures only, `Retry-After` honoured, every wait
/// cancellable, and a body cut short resumed with a range request.
@Suite("Retries and resumption", .timeLimit(.minutes(1)))
struct RetryTests {
    /// Fast backoff, three attempts.
    private static let quick = DataRequest.RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20), maxDelay: .milliseconds(40))

    private func coalescer(_ policy: DataRequest.RetryPolicy) -> DownloadCoalescer {
        var configuration = DownloadCoalescer.Configuration()
        configuration.retryPolicy = policy
        return DownloadCoalescer(loader: CurlDataLoader(), configuration: configuration)
    }

    @Test("503, 503, 200 is three requests at the server, shared by two subscribers, and one body for both")
    func twoUnavailableThenOK() async throws {
        // Given a server answering 503 twice, then the body; the first answer held until both subscribed
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(50_000, seed: 21)
        let count = Locked(0)
        let gate = Gate()
        server.route("/flaky") { _ in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            if number == 1 { gate.wait() }
            return number <= 2 ? .status(503) : .ok(body)
        }
        let coalescer = coalescer(Self.quick)
        let request = DataRequest(url: server.url("/flaky"))
        // When two callers download it at once
        async let first = coalescer.download(request).collect()
        async let second = coalescer.download(request).collect()
        #expect(await eventually { await coalescer.subscriberCount(for: request) == 2 })
        gate.open(1)
        let results = try await [first, second]
        // Then both got the body and the server saw one sequence of 3 requests
        for result in results { #expect(result.completed == body) }
        #expect(server.statistics("/flaky").requests == 3)
        #expect(await coalescer.transfersStarted == 1)
    }

    @Test("404 is not retried: one request", arguments: [404, 403, 410])
    func clientErrorNotRetried(status: Int) async throws {
        // Given a server answering a 4xx other than 408 and 429
        let server = try startedServer()
        defer { server.stop() }
        server.route("/gone", .status(status))
        // When it is downloaded with three attempts allowed
        let error = await downloadError(coalescer(Self.quick), DataRequest(url: server.url("/gone")))
        // Then it failed at once
        #expect(error as? ImageError == .httpStatus(status))
        #expect(server.statistics("/gone").requests == 1)
    }

    @Test("the request's own policy wins over the coalescer's; with none, a 503 is one request")
    func requestPolicy() async throws {
        // Given a server that always answers 503
        let server = try startedServer()
        defer { server.stop() }
        server.route("/down", .status(503))
        // When it is downloaded by a coalescer that retries, with a request that does not
        var request = DataRequest(url: server.url("/down"))
        request.retryPolicy = DataRequest.RetryPolicy.none
        let error = await downloadError(coalescer(Self.quick), request)
        // Then there was one request; and with the coalescer's policy, three
        #expect(error as? ImageError == .httpStatus(503))
        #expect(server.statistics("/down").requests == 1)
        let again = await downloadError(coalescer(Self.quick), DataRequest(url: server.url("/down?again")))
        #expect(again as? ImageError == .httpStatus(503))
        #expect(server.statistics("/down").requests == 4)
    }

    @Test("Retry-After: 1 makes the second request wait a second; one over the cap ends the retries")
    func retryAfter() async throws {
        // Given a server that answers 503 with Retry-After: 1 once, then the body
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(10_000, seed: 22)
        let arrivals = Locked<[ContinuousClock.Instant]>([])
        server.route("/later") { _ in
            let number = arrivals.withLock { list -> Int in
                list.append(.now)
                return list.count
            }
            return number == 1 ? .init(status: 503, headers: [("Retry-After", "1")]) : .ok(body)
        }
        // When it is downloaded with a tiny backoff of its own
        let policy = DataRequest.RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
        let result = try await coalescer(policy).download(DataRequest(url: server.url("/later"))).collect()
        // Then the second request came at least a second after the first
        #expect(result.completed == body)
        let times = arrivals.value
        try #require(times.count == 2)
        #expect(times[1] - times[0] >= .milliseconds(990), "\(times[1] - times[0])")

        // And a Retry-After past maxRetryAfter is not waited for: one request, the status
        server.route("/much-later", .init(status: 503, headers: [("Retry-After", "3600")]))
        let error = await downloadError(coalescer(policy), DataRequest(url: server.url("/much-later")))
        #expect(error as? ImageError == .httpStatus(503))
        #expect(server.statistics("/much-later").requests == 1)
    }

    @Test("cancelling during a backoff leaves within 50 ms, and no further request is made")
    func cancelDuringBackoff() async throws {
        // Given a server that always answers 503 with Retry-After: 5
        let server = try startedServer()
        defer { server.stop() }
        server.route("/wait", .init(status: 503, headers: [("Retry-After", "5")]))
        let coalescer = coalescer(DataRequest.RetryPolicy(maxAttempts: 3))
        let request = DataRequest(url: server.url("/wait"))
        let task = Task { try await coalescer.download(request).collect() }
        // (the first answer is complete: the download is waiting its 5 s)
        #expect(await server.waitUntil("/wait") { $0.completed == 1 })
        try await Task.sleep(for: .milliseconds(50))
        // When the caller is cancelled
        let start = ContinuousClock.now
        task.cancel()
        let outcome = await task.result
        let elapsed = ContinuousClock.now - start
        // Then it left at once, and the transfer ended with it
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(elapsed < .milliseconds(50).scaled, "\(elapsed)")
        #expect(await eventually { await coalescer.transferCount == 0 })
        #expect(server.statistics("/wait").requests == 1)
    }

    @Test("a transfer cut at 90 % resumes with a Range request for the rest; the bytes are identical",
          arguments: [true, false])
    func resumeAfterCut(serverHonoursRange: Bool) async throws {
        // Given a 200 KB body with Accept-Ranges and a strong ETag, whose first
        // answer is reset after 180 KB; later answers honour Range (206) or,
        // ignoring it, send the whole body again (200, same ETag)
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(200_000, seed: 23)
        let count = Locked(0)
        server.route("/big") { request in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            let headers = [("Accept-Ranges", "bytes"), ("ETag", "\"v1\"")]
            if number == 1 { return .init(headers: headers, body: body, fault: .resetAfter(bytes: 180_000)) }
            guard serverHonoursRange, let range = request[header: "Range"], range.hasPrefix("bytes="),
                  let first = Int(range.dropFirst(6).prefix { $0 != "-" }), request[header: "If-Range"] == "\"v1\"" else {
                return .init(headers: headers, body: body)
            }
            return .init(status: 206, headers: headers + [("Content-Range", "bytes \(first)-\(body.count - 1)/\(body.count)")],
                         body: body.subdata(in: first..<body.count))
        }
        // When it is downloaded with a retry allowed
        let result = try await coalescer(Self.quick).download(DataRequest(url: server.url("/big"))).collect()
        // Then the subscriber got exactly the body, after one more request asking for the rest
        #expect(result.completed == body)
        #expect(result.chunks == body)
        let statistics = server.statistics("/big")
        #expect(statistics.requests == 2)
        let second = try #require(statistics.requestHeaders.last)
        let range = try #require(second["range"])
        let first = try #require(Int(range.dropFirst(6).prefix { $0 != "-" }))
        #expect(range == "bytes=\(first)-")
        #expect(first > 0 && first <= 180_000)
        #expect(second["if-range"] == "\"v1\"")
    }

    /// A server whose first answer for `body` (ETag `"v1"`) is cut after 180 KB,
    /// and whose answers after it are `later(request, number)`.
    private func cutThen(
        _ server: LoopbackServer, _ path: String, _ body: Data,
        later: @escaping @Sendable (LoopbackServer.Request, Int) -> LoopbackServer.Response
    ) {
        let count = Locked(0)
        server.route(path) { request in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            guard number > 1 else {
                return .init(headers: [("Accept-Ranges", "bytes"), ("ETag", "\"v1\"")], body: body, fault: .resetAfter(bytes: 180_000))
            }
            return later(request, number)
        }
    }

    @Test("a 206 of another version (its ETag) or of another length is not spliced: the whole body again, from zero")
    func unusablePartialRestarts() async throws {
        for changed in ["etag", "length"] {
            // Given a cut 200 KB body, and a server that answers the range request with a 206 that
            // names another ETag (ignoring If-Range) or another complete length, then sends the new version whole
            let server = try startedServer()
            defer { server.stop() }
            let body = testBytes(200_000, seed: 30)
            let newer = testBytes(210_000, seed: 31)
            cutThen(server, "/v", body) { request, number in
                if number == 2 {
                    let tag = changed == "etag" ? "\"v2\"" : "\"v1\""
                    let total = changed == "etag" ? body.count : body.count + 1
                    return .init(status: 206, headers: [("ETag", tag), ("Content-Range", "bytes 180000-\(total - 1)/\(total)")],
                                 body: newer.subdata(in: 180_000..<total))
                }
                return .init(headers: [("ETag", "\"v2\"")], body: newer)
            }
            // When it is downloaded with retries allowed
            let result = try await coalescer(Self.quick).download(DataRequest(url: server.url("/v"))).collect()
            // Then the body is the new version whole, never the old bytes with the new tail
            #expect(result.completed == newer, "\(changed)")
            let statistics = server.statistics("/v")
            #expect(statistics.requests == 3, "\(changed)")
            // and the third request asked for everything, unconditionally
            #expect(statistics.requestHeaders.last?["range"] == nil && statistics.requestHeaders.last?["if-range"] == nil, "\(changed)")
        }
    }

    @Test("a 200 of another version answering If-Range replaces the bytes so far, with no further request")
    func replacementRestartsTheBody() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(200_000, seed: 32)
        let newer = testBytes(150_000, seed: 33)
        cutThen(server, "/r", body) { request, _ in
            // If-Range does not match the new version: the whole of it (RFC 9110 §13.1.5).
            #expect(request[header: "If-Range"] == "\"v1\"")
            return .init(headers: [("Accept-Ranges", "bytes"), ("ETag", "\"v2\"")], body: newer)
        }
        let result = try await coalescer(Self.quick).download(DataRequest(url: server.url("/r"))).collect()
        #expect(result.completed == newer)
        // Two heads: the subscriber saw the body start again.
        #expect(result.events.filter { $0 == "head" }.count == 2)
        #expect(result.head?.headers[.eTag] == "\"v2\"")
        #expect(server.statistics("/r").requests == 2)
    }

    @Test("a cut body without a validator is not resumed: the error, one request")
    func noResumeWithoutValidator() async throws {
        // Given a body reset after 180 KB whose response has Accept-Ranges but no ETag or Last-Modified
        let server = try startedServer()
        defer { server.stop() }
        server.route("/plain", .init(headers: [("Accept-Ranges", "bytes")], body: testBytes(200_000, seed: 24), fault: .resetAfter(bytes: 180_000)))
        // When it is downloaded with retries allowed
        let error = await downloadError(coalescer(Self.quick), DataRequest(url: server.url("/plain")))
        // Then the lost connection is reported (bytes were delivered, so no restart from zero)
        guard case .network(let failure) = error as? ImageError else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .connectionLost)
        #expect(server.statistics("/plain").requests == 1)
    }

    @Test("Retry-After in seconds and as an HTTP date; the backoff bound doubles up to its cap")
    func policyArithmetic() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(DataRequest.RetryPolicy.retryAfter("7", now: now) == .seconds(7))
        #expect(DataRequest.RetryPolicy.retryAfter("Mon, 12 Jan 1970 13:47:00 GMT", now: now) == .seconds(20))
        #expect(DataRequest.RetryPolicy.retryAfter("soon", now: now) == nil)
        // Every form RFC 9110 §5.6.7 allows, by the HTTP cache's one parser; another zone is no HTTP-date
        #expect(DataRequest.RetryPolicy.retryAfter("Monday, 12-Jan-70 13:47:00 GMT", now: now) == .seconds(20))
        #expect(DataRequest.RetryPolicy.retryAfter("Mon Jan 12 13:47:00 1970", now: now) == .seconds(20))
        #expect(DataRequest.RetryPolicy.retryAfter("Mon, 12 Jan 1970 13:47:00 PST", now: now) == nil)
        let policy = DataRequest.RetryPolicy(maxAttempts: 6, baseDelay: .milliseconds(100), maxDelay: .milliseconds(350))
        #expect((1...5).map { policy.backoffBound(afterFailures: $0) } == [100, 200, 350, 350, 350].map { .milliseconds($0) })
        #expect(policy.delay(afterFailures: 2, retryAfter: nil, random: 0.5) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 6, retryAfter: nil, random: 0.5) == nil)
        #expect(policy.isTransient(ImageError.httpStatus(429)))
        #expect(!policy.isTransient(ImageError.httpStatus(404)))
        #expect(policy.isTransient(ImageError.network(.init(kind: .cannotConnect, code: 7, message: ""))))
        #expect(!policy.isTransient(ImageError.network(.init(kind: .tls, code: 60, message: ""))))
    }

    @Test("ImageContext.retryPolicy reaches the download: 503, 503, 200 loads the image, three requests; without it, one")
    func contextPolicy() async throws {
        // Given an image whose first two answers are 503
        let harness = try PipelineHarness()
        defer { harness.server.stop() }
        let png = try noisePNG(side: 16)
        let count = Locked(0)
        harness.server.route("/img.png") { _ in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            return number <= 2 ? .status(503) : .ok(png, contentType: "image/png")
        }
        let url = harness.server.url("/img.png")
        // When it is loaded once with no policy, then with a policy in the call's context
        await #expect(throws: ImageError.httpStatus(503)) { try await harness.loader.response(url) }
        #expect(harness.server.statistics("/img.png").requests == 1)
        var context = ImageContext()
        context.retryPolicy = Self.quick
        let response = try await harness.loader.response(url, context: context)
        // Then the second load retried past the 503 (requests 2 and 3) and decoded the image
        #expect(response.image.width == 16)
        #expect(harness.server.statistics("/img.png").requests == 3)
    }

    @Test("the loader-wide retryPolicy reaches every download, its per-request loaders' too; a context's .none wins over it")
    func loaderWidePolicy() async throws {
        // Given images whose first two answers are 503, and a loader configured to retry
        let harness = try PipelineHarness { $0.retryPolicy = Self.quick }
        defer { harness.server.stop() }
        let png = try noisePNG(side: 16)
        for path in ["/a.png", "/b.png", "/c.png"] {
            let count = Locked(0)
            harness.server.route(path) { _ in
                let number = count.withLock { value -> Int in
                    value += 1
                    return value
                }
                return number <= 2 ? .status(503) : .ok(png, contentType: "image/png")
            }
        }
        // When one is loaded plainly, one through a per-request data loader, and one with a context that says none
        let plain = try await harness.loader.response(harness.server.url("/a.png"))
        var ownLoader = ImageContext()
        ownLoader.dataLoader = CurlDataLoader()
        let viaOwnLoader = try await harness.loader.response(harness.server.url("/b.png"), context: ownLoader)
        var noRetry = ImageContext()
        noRetry.retryPolicy = DataRequest.RetryPolicy.none
        await #expect(throws: ImageError.httpStatus(503)) { try await harness.loader.response(harness.server.url("/c.png"), context: noRetry) }

        // Then the first two retried past the 503s (three requests each); the third asked once
        #expect(plain.image.width == 16 && viaOwnLoader.image.width == 16)
        #expect(harness.server.statistics("/a.png").requests == 3)
        #expect(harness.server.statistics("/b.png").requests == 3)
        #expect(harness.server.statistics("/c.png").requests == 1)
    }

    private func downloadError(_ coalescer: DownloadCoalescer, _ request: DataRequest) async -> (any Error)? {
        do {
            _ = try await coalescer.download(request).collect()
            return nil
        } catch {
            return error
        }
    }
}
