import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// HTTP basic, digest and bearer credentials on a request, against the
/// loopback server checking `Authorization` (and challenging with `401`).
@Suite("HTTP authentication", .timeLimit(.minutes(1)))
struct CurlAuthenticationTests {
    private func status(_ transfer: DataRequest.Transfer) async throws -> Int? {
        do {
            _ = try await transfer.collect()
            return nil
        } catch ImageError.httpStatus(let status) {
            return status
        }
    }

    @Test("basic: the right credentials load (sent with the first request), none or wrong ones get 401")
    func basic() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(3_000, seed: 4)
        server.route("/b", handler: LoopbackServer.Authentication.basic(user: "ann", password: "s3cret").handler(.ok(body)))
        let loader = CurlDataLoader()
        let good = DataRequest(url: server.url("/b"), credential: .basic(user: "ann", password: "s3cret"))
        #expect(try await loader.loadData(for: good).collect().body == body)
        #expect(server.statistics("/b").requests == 1)
        #expect(server.statistics("/b").requestHeaders.first?["authorization"] == "Basic " + Data("ann:s3cret".utf8).base64EncodedString())
        #expect(try await status(loader.loadData(for: DataRequest(url: server.url("/b")))) == 401)
        #expect(try await status(loader.loadData(for: DataRequest(url: server.url("/b"), credential: .basic(user: "ann", password: "nope")))) == 401)
    }

    @Test("digest: the server's 401 challenge is answered; 2 requests, the second with a valid digest")
    func digest() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(2_000, seed: 6)
        let scheme = LoopbackServer.Authentication.digest(user: "bob", password: "pw", realm: "images")
        server.route("/d", handler: scheme.handler(.ok(body)))
        let loader = CurlDataLoader()
        let request = DataRequest(url: server.url("/d"), credential: .digest(user: "bob", password: "pw"))
        #expect(try await loader.loadData(for: request).collect().body == body)
        let headers = server.statistics("/d").requestHeaders
        #expect(headers.count == 2)
        #expect(headers.first?["authorization"] == nil)
        #expect(headers.last?["authorization"]?.hasPrefix("Digest ") == true)
        // A wrong password is refused after the challenge
        let wrong = DataRequest(url: server.url("/d"), credential: .digest(user: "bob", password: "bad"))
        #expect(try await status(loader.loadData(for: wrong)) == 401)
    }

    @Test("bearer: the token is sent as Authorization: Bearer; another token gets 401")
    func bearer() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(1_500, seed: 8)
        server.route("/t", handler: LoopbackServer.Authentication.bearer("tok-1").handler(.ok(body)))
        let loader = CurlDataLoader()
        #expect(try await loader.loadData(for: DataRequest(url: server.url("/t"), credential: .bearer("tok-1"))).collect().body == body)
        #expect(server.statistics("/t").requestHeaders.first?["authorization"] == "Bearer tok-1")
        #expect(try await status(loader.loadData(for: DataRequest(url: server.url("/t"), credential: .bearer("tok-2")))) == 401)
    }

    @Test("two tenants' credentials never share a download: concurrent loads through one coalescer reach the server twice")
    func tenantsApart() async throws {
        let server = try startedServer()
        defer { server.stop() }
        server.route("/s", .init(body: testBytes(50_000, seed: 10), delayBeforeHead: .milliseconds(100)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let a = DataRequest(url: server.url("/s"), credential: .bearer("tenant-a"))
        let b = DataRequest(url: server.url("/s"), credential: .bearer("tenant-b"))
        async let first = coalescer.download(a).collect()
        async let second = coalescer.download(b).collect()
        async let third = coalescer.download(a).collect()
        _ = try await (first, second, third)
        let tokens = server.statistics("/s").requestHeaders.compactMap { $0["authorization"] }.sorted()
        #expect(tokens == ["Bearer tenant-a", "Bearer tenant-b"])
    }
}
