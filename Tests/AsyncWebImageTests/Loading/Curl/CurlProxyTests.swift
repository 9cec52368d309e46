import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// Proxy settings against a real `tinyproxy` on 127.0.0.1.
@Suite("Proxies through tinyproxy", .timeLimit(.minutes(1)))
struct CurlProxyTests {
    private func failureKind(_ transfer: DataRequest.Transfer) async throws -> ImageError.NetworkFailure.Kind? {
        do {
            _ = try await transfer.collect()
            return nil
        } catch ImageError.network(let failure) {
            return failure.kind
        }
    }

    private func loader(proxy: String, user: String? = nil, password: String? = nil, noProxy: [String] = []) -> CurlDataLoader {
        var configuration = CurlDataLoader.Configuration()
        configuration.proxy = proxy
        configuration.proxyUser = user
        configuration.proxyPassword = password
        configuration.noProxy = noProxy
        return CurlDataLoader(configuration: configuration)
    }

    @Test("a load goes through the proxy: the origin sees tinyproxy's Via header; a no-proxy host does not")
    func throughProxy() async throws {
        let proxy = try await TinyproxyServer()
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(8_000, seed: 12)
        server.route("/p", .ok(body))
        #expect(try await loader(proxy: proxy.url).loadData(for: DataRequest(url: server.url("/p"))).collect().body == body)
        #expect(server.statistics("/p").requestHeaders.first?["via"]?.contains("tinyproxy") == true)
        // Listed in noProxy: reached directly
        #expect(try await loader(proxy: proxy.url, noProxy: ["127.0.0.1"]).loadData(for: DataRequest(url: server.url("/p"))).collect().body == body)
        #expect(server.statistics("/p").requestHeaders.count == 2)
        #expect(server.statistics("/p").requestHeaders.last?["via"] == nil)
    }

    @Test("a proxy that cannot be reached, or whose name does not resolve, fails with the proxy kind")
    func unreachableProxy() async throws {
        let server = try startedServer()
        defer { server.stop() }
        server.route("/p", .ok(testBytes(100)))
        let (fd, port) = try LoopbackPort.listeningSocket()
        close(fd) // nothing listens there now
        #expect(try await failureKind(loader(proxy: "http://127.0.0.1:\(port)").loadData(for: DataRequest(url: server.url("/p")))) == .proxy)
        #expect(try await failureKind(loader(proxy: "http://no-such-proxy.invalid:3128").loadData(for: DataRequest(url: server.url("/p")))) == .proxy)
        #expect(server.statistics("/p").requests == 0)
    }

    @Test("tinyproxy with BasicAuth: the right credentials pass; none → its 407 → the proxy kind; wrong ones are refused")
    func proxyAuthentication() async throws {
        let proxy = try await TinyproxyServer(user: "px", password: "pw")
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(2_000, seed: 14)
        server.route("/p", .ok(body))
        #expect(try await loader(proxy: proxy.url, user: "px", password: "pw").loadData(for: DataRequest(url: server.url("/p"))).collect().body == body)
        #expect(try await failureKind(loader(proxy: proxy.url).loadData(for: DataRequest(url: server.url("/p")))) == .proxy)
        // tinyproxy 1.11 answers wrong credentials with 401, not 407 (seen with
        // the curl tool too): the load fails with that status, the origin sees nothing.
        await #expect(throws: ImageError.httpStatus(401)) {
            _ = try await loader(proxy: proxy.url, user: "px", password: "wrong").loadData(for: DataRequest(url: server.url("/p"))).collect()
        }
        #expect(server.statistics("/p").requests == 1)
    }

    @Test("HTTPS through the proxy is tunnelled (CONNECT) to nghttpd over HTTP/2; a refused CONNECT (407) is the proxy kind")
    func tunnel() async throws {
        let certificates = try TestCertificates()
        let body = testBytes(5_000, seed: 16)
        let server = try await NghttpdServer(certificates: certificates, files: ["a.bin": body])
        let proxy = try await TinyproxyServer(user: "px", password: "pw")
        var configuration = CurlDataLoader.Configuration()
        configuration.caBundlePath = certificates.caBundle
        configuration.proxy = proxy.url
        configuration.noProxy = []
        configuration.proxyUser = "px"
        configuration.proxyPassword = "pw"
        let result = try await CurlDataLoader(configuration: configuration).loadData(for: DataRequest(url: server.url("a.bin"))).collect()
        #expect(result.body == body)
        #expect(result.head?.timings?.httpVersion == "2")
        #expect(server.requests == 1)
        // Without credentials tinyproxy answers the CONNECT with 407: the origin is never reached
        configuration.proxyUser = nil
        configuration.proxyPassword = nil
        #expect(try await failureKind(CurlDataLoader(configuration: configuration).loadData(for: DataRequest(url: server.url("a.bin")))) == .proxy)
        #expect(server.requests == 1)
    }
}
