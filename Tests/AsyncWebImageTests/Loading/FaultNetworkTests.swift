import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

/// Hostile and broken servers, end to end through `ImageLoader` with a real
/// cache directory. Every case: the typed error, nothing cached for the
/// failed URL, nothing left in flight, and the image cached before the
/// fault still served from memory and disk.
@Suite("Faults: network", .timeLimit(.minutes(1)))
struct FaultNetworkTests {
    /// A real ~30 KB JPEG.
    private static func jpeg() throws -> Data { try fixture("jpeg", "large.jpg") }

    private func expectNetwork(_ error: (any Error)?, _ kind: ImageError.NetworkFailure.Kind, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .network(let failure) = error as? ImageError else {
            Issue.record("expected a \(kind) network error, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(failure.kind == kind, "\(failure)", sourceLocation: sourceLocation)
    }

    @Test("a connection reset mid-body fails with connectionLost")
    func resetMidBody() async throws {
        // Given a server that resets the connection after 5,000 of ~30,000 bytes
        let rig = try await FaultRig.make()
        rig.server.route("/reset.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: try Self.jpeg(), fault: .resetAfter(bytes: 5_000)))
        let url = rig.server.url("/reset.jpg")
        // When it is loaded
        let error = await rig.failure(url)
        // Then the error is a lost connection, and a transient one: the URL is not blocked
        expectNetwork(error, .connectionLost)
        #expect(!rig.loader.isBlocked(url))
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("an origin that drops the connection before any response sees one request, however many idle connections the pool holds")
    func dropSeesOneRequest() async throws {
        // Given four idle pooled connections to the origin: four loads held
        // by the origin until all four have arrived, so each has a connection
        // of its own (bounded: 10 s)
        let rig = try await FaultRig.make()
        let png = try fixture("png", "rgb8.png")
        let arrived = Locked(0)
        for index in 0..<4 {
            rig.server.route("/warm\(index).png") { _ in
                arrived.withLock { $0 += 1 }
                for _ in 0..<1000 where arrived.withLock({ $0 }) < 4 { Thread.sleep(forTimeInterval: 0.01) }
                return .ok(png, contentType: "image/png")
            }
        }
        let before = rig.server.connectionsAccepted
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<4 { group.addTask { _ = try await rig.loader.response(rig.server.url("/warm\(index).png")) } }
            try await group.waitForAll()
        }
        #expect(rig.server.connectionsAccepted - before >= 3)
        // and an origin that reads the request and closes the connection, sending nothing
        rig.server.route("/drop.png", .init(headers: [("Content-Type", "image/png")], body: png, fault: .raw(Data())))
        let url = rig.server.url("/drop.png")
        // When it is loaded twice
        for _ in 0..<2 {
            expectNetwork(await rig.failure(url), .connectionLost)
        }
        // Then the origin saw one request per load: curl did not send it again on another pooled connection
        #expect(rig.server.statistics("/drop.png").requests == 2)
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("redirects and a digest challenge still send their follow-up requests")
    func followUpsStillSent() async throws {
        let rig = try await FaultRig.make()
        let png = try fixture("png", "rgb8.png")
        _ = rig.harness.serve("/target.png", png)
        rig.server.route("/hop1", .redirect(to: "/hop2"))
        rig.server.route("/hop2", .redirect(to: "/target.png"))
        let response = try await rig.loader.response(rig.server.url("/hop1"))
        #expect(response.image.width > 0)
        #expect(rig.harness.requests("/hop1") == 1 && rig.harness.requests("/hop2") == 1 && rig.harness.requests("/target.png") == 1)
    }

    @Test("a server that stalls mid-body times out within timeout + 2 s")
    func stall() async throws {
        // Given a 1 s stall timeout and a server that stops after 5,000 bytes
        let rig = try await FaultRig.make { $0.timeout = .seconds(1) }
        rig.server.route("/stall.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: try Self.jpeg(), fault: .stallAfter(bytes: 5_000)))
        let url = rig.server.url("/stall.jpg")
        // When it is loaded
        let start = ContinuousClock.now
        let error = await rig.failure(url)
        // Then it times out, and curl left the server within 2 s of the start (measured at the server)
        guard case .timeout = error as? ImageError else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(await rig.server.waitUntil("/stall.jpg") { $0.disconnects.count == 1 })
        let gaveUp = try #require(rig.server.statistics("/stall.jpg").disconnects.first)
        #expect(gaveUp - start < .seconds(3).scaled)
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("a 1 byte/s trickle never stalls, so the transfer timeout ends it")
    func trickle() async throws {
        // Given a stall timeout (3 s) longer than the trickle's pause (1 s), and a 2 s transfer timeout
        let rig = try await FaultRig.make {
            $0.timeout = .seconds(3)
            $0.transferTimeout = .seconds(2)
        }
        rig.server.route("/trickle.jpg", .init(
            headers: [("Content-Type", "image/jpeg")], body: try Self.jpeg(),
            trickle: .init(bytesPerPiece: 1, interval: .seconds(1))))
        let url = rig.server.url("/trickle.jpg")
        // When it is loaded
        let start = ContinuousClock.now
        let error = await rig.failure(url)
        // Then it is curl's total timeout (not the stall check) after bytes did arrive,
        // and curl left the server about 2 s after the start
        guard case .timeout(let message) = error as? ImageError else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(!message.contains("no data received"), "\(message)")
        #expect(await rig.server.waitUntil("/trickle.jpg") { $0.disconnects.count == 1 })
        let statistics = rig.server.statistics("/trickle.jpg")
        #expect(statistics.bodyBytesSent >= 1)
        let gaveUp = try #require(statistics.disconnects.first)
        #expect(gaveUp - start >= .milliseconds(1_900))
        #expect(gaveUp - start < .seconds(5).scaled)
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("5xx fails with its status and does not block the URL", arguments: [500, 502, 503])
    func serverError(status: Int) async throws {
        // Given a server answering with a 5xx
        let rig = try await FaultRig.make()
        rig.server.route("/5xx.jpg", .status(status))
        let url = rig.server.url("/5xx.jpg")
        // When it is loaded
        let error = await rig.failure(url)
        // Then the status is typed and the URL stays loadable
        #expect(error as? ImageError == .httpStatus(status))
        #expect(!rig.loader.isBlocked(url))
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("a redirect loop ends in tooManyRedirects after maxRedirects")
    func redirectLoop() async throws {
        // Given /a → /b → /a ... and at most 4 redirects
        let rig = try await FaultRig.make { $0.maxRedirects = 4 }
        rig.server.route("/a", .redirect(to: "/b"))
        rig.server.route("/b", .redirect(to: "/a"))
        let url = rig.server.url("/a")
        // When it is loaded
        let error = await rig.failure(url)
        // Then the loop is cut after 1 + 4 requests
        expectNetwork(error, .tooManyRedirects)
        #expect(rig.server.statistics("/a").requests + rig.server.statistics("/b").requests == 5)
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("a Content-Length larger than the body is a lost connection")
    func contentLengthTooLarge() async throws {
        // Given a response announcing 1,000 bytes more than it sends
        let rig = try await FaultRig.make()
        let body = try Self.jpeg()
        rig.server.route("/long.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: body, framing: .declaredLength(body.count + 1_000)))
        let url = rig.server.url("/long.jpg")
        // When it is loaded
        let error = await rig.failure(url)
        // Then the body is known to be short, so nothing is decoded or stored
        expectNetwork(error, .connectionLost)
        #expect(rig.harness.decodes.count == 1)  // the image cached before, nothing else
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("a Content-Length smaller than the body cuts the image: undecodable, not cached")
    func contentLengthTooSmall() async throws {
        // Given a PNG whose response announces 1,000 bytes less than its size
        let rig = try await FaultRig.make()
        let png = try noisePNG(side: 64)
        rig.server.route("/short.png", .init(headers: [("Content-Type", "image/png")], body: png, framing: .declaredLength(png.count - 1_000)))
        let url = rig.server.url("/short.png")
        // When it is loaded
        let error = await rig.failure(url)
        // Then curl takes the announced bytes, the truncated PNG cannot be decoded, and it is not stored
        guard case .undecodable(.png, _) = error as? ImageError else {
            Issue.record("expected undecodable PNG, got \(String(describing: error))")
            return
        }
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("a gzip bomb (1 GiB of zeros in 6.8 MB) stops at the limit on decoded bytes, early")
    func gzipBomb() async throws {
        // Given an 8 MiB body limit and a gzip stream whose compressed length (6.8 MB) passes it
        let rig = try await FaultRig.make { $0.maxResponseBytes = 8 << 20 }
        let groups = (1 << 30) / (258 * 8) + 1
        let bomb = GzipBomb.make(copyGroups: groups)
        #expect(GzipBomb.decodedSize(copyGroups: groups) > 1 << 30)
        #expect(bomb.count < 7_000_000)
        rig.server.route("/bomb.png", .init(headers: [("Content-Type", "image/png"), ("Content-Encoding", "gzip")], body: bomb))
        let url = rig.server.url("/bomb.png")
        // When it is loaded, watching its progress (which counts decoded bytes)
        var received: Int64 = 0
        var error: (any Error)?
        do {
            for try await event in rig.loader.events(url) {
                if case .progress(let bytes, _) = event { received = max(received, bytes) }
            }
        } catch let caught {
            error = caught
        }
        // Then the limit applies to the decoded bytes: no more than 8 MiB were
        // taken, the server never got to send the whole compressed body, and
        // nothing was decoded but the image cached before
        #expect(error as? ImageError == .tooLarge(.bytes, limit: 8 << 20, actual: nil))
        #expect(received > 0)
        #expect(received <= 8 << 20)
        #expect(await rig.server.waitUntil("/bomb.png") { $0.disconnects.count == 1 })
        #expect(rig.server.statistics("/bomb.png").completed == 0)
        #expect(rig.server.statistics("/bomb.png").bodyBytesSent < bomb.count)
        #expect(rig.harness.decodes.count == 1)
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("the gzip bomb generator is honest: a small one decodes to exactly its zeros")
    func gzipBombIsValid() async throws {
        // Given a 2 MiB-of-zeros stream and a loader whose limit is above it
        let server = try startedServer()
        defer { server.stop() }
        let groups = 1_000
        server.route("/z", .init(headers: [("Content-Encoding", "gzip")], body: GzipBomb.make(copyGroups: groups)))
        // When it is loaded
        let result = try await CurlDataLoader().loadData(for: DataRequest(url: server.url("/z"))).collect()
        // Then curl decodes every zero, no more
        #expect(result.body.count == GzipBomb.decodedSize(copyGroups: groups))
        #expect(result.body.allSatisfy { $0 == 0 })
        // and the CRC-32 of zeros matches a byte-by-byte computation
        #expect(GzipBomb.crc32OfZeros(1_000) == Data(count: 1_000).withUnsafeBytes { CRC32.checksum($0) })
    }

    @Test("a body over the limit fails tooLarge, announced or not", arguments: [false, true])
    func bodyOverLimit(chunked: Bool) async throws {
        // Given a 64 KiB limit and a ~90 KB PNG, with or without Content-Length
        let rig = try await FaultRig.make { $0.maxResponseBytes = 64 << 10 }
        let png = try noisePNG(side: 170)
        try #require(png.count > 80_000)
        rig.server.route("/big.png", .init(headers: [("Content-Type", "image/png")], body: png, framing: chunked ? .chunked : .contentLength))
        let url = rig.server.url("/big.png")
        // When it is loaded
        let error = await rig.failure(url)
        // Then the limit is typed (with the announced size when there was one) and permanent
        let expected: ImageError = .tooLarge(.bytes, limit: 64 << 10, actual: chunked ? nil : Int64(png.count))
        #expect(error as? ImageError == expected)
        #expect(rig.loader.isBlocked(url))
        try await rig.expectNothingCachedNothingLost(after: url)
    }

    @Test("a JPEG whose header claims 64250×64250 fails from its header, fast, with no large allocation")
    func pixelBomb() async throws {
        // Given a real ~30 KB JPEG with its frame header rewritten to 64250×64250 (4.1 gigapixels)
        let rig = try await FaultRig.make()
        var jpeg = [UInt8](try Self.jpeg())
        let sof = try #require((0..<jpeg.count - 9).first { jpeg[$0] == 0xFF && (0xC0...0xC2).contains(jpeg[$0 + 1]) })
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0xFA, 0xFA, 0xFA, 0xFA])
        rig.server.route("/huge.jpg", .ok(Data(jpeg), contentType: "image/jpeg"))
        let url = rig.server.url("/huge.jpg")
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peakBefore = usage.ru_maxrss
        // When it is loaded
        let start = ContinuousClock.now
        let error = await rig.failure(url)
        let elapsed = ContinuousClock.now - start
        // Then the pixel limit refuses it from the header: fast, and the process's peak
        // memory did not grow by anything near the 12 GB a decode would need
        guard case .tooLarge(.pixels, _, let actual) = error as? ImageError else {
            Issue.record("expected tooLarge(.pixels), got \(String(describing: error))")
            return
        }
        #expect(actual == Int64(64250) * Int64(64250))
        // (the whole load, server included, in well under a second normally; the bound
        // is generous for a loaded machine or a sanitizer, a decode would take minutes)
        #expect(elapsed < .seconds(5).scaled, "\(elapsed)")
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #expect(usage.ru_maxrss - peakBefore < 256 * 1024, "peak RSS grew by \(usage.ru_maxrss - peakBefore) KiB")
        try await rig.expectNothingCachedNothingLost(after: url)
    }
}
