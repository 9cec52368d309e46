import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// Each way a curl transfer can end badly, mapped to the `ImageError` a
/// caller (and the thumbnail server's status) needs: a broken upstream, a
/// refused redirect, a refused scheme, and a decompression bomb.
@Suite("Curl outcomes", .timeLimit(.minutes(1)))
struct CurlOutcomeTests {
    /// The loader's error for `url`, reading the body `pauseAfterHead` after the head.
    private func failure(
        _ url: URL,
        _ configure: (inout CurlDataLoader.Configuration) -> Void = { _ in },
        pauseAfterHead: Duration = .zero
    ) async -> (any Error)? {
        var configuration = CurlDataLoader.Configuration()
        configure(&configuration)
        let loader = CurlDataLoader(configuration: configuration)
        do {
            var iterator = loader.loadData(for: DataRequest(url: url)).makeAsyncIterator()
            while let event = try await iterator.next() {
                if case .head = event, pauseAfterHead > .zero { try await Task.sleep(for: pauseAfterHead) }
            }
            return nil
        } catch {
            return error
        }
    }

    private func networkKind(_ error: (any Error)?) -> ImageError.NetworkFailure.Kind? {
        guard case .network(let failure) = error as? ImageError else { return nil }
        return failure.kind
    }

    @Test("an upstream that does not answer HTTP is a protocol error, not a refused scheme", arguments: [
        "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n",
        "HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nhi",
        "HTTP/1.1 100 Continue\r\n\r\nnot http at all\r\n\r\n",
    ])
    func brokenUpstream(reply: String) async throws {
        // Given a server that answers with an SSH banner, an HTTP version curl refuses, or junk after a 100
        let server = try startedServer()
        defer { server.stop() }
        server.route("/broken", .init(fault: .raw(Data(reply.utf8))))
        // When it is loaded
        let error = await failure(server.url("/broken"))
        // Then it is the upstream's fault (curl's code 1, read with the request's allowed scheme in mind)
        #expect(networkKind(error) == .protocolError, "\(String(describing: error))")
        guard case .network(let failure) = error as? ImageError else { return }
        #expect(failure.code == 1)
        #expect(server.statistics("/broken").requests == 1)
    }

    @Test("a redirect to a scheme that is not allowed is a refused redirect", arguments: [
        "file:///etc/passwd", "ftp://127.0.0.1:1/x", "gopher://127.0.0.1:1/x",
    ])
    func refusedRedirect(location: String) async throws {
        // Given an http URL that redirects to file:, ftp: or gopher:
        let server = try startedServer()
        defer { server.stop() }
        server.route("/away", .redirect(to: location))
        // When it is loaded
        let error = await failure(server.url("/away"))
        // Then the redirect is refused with its own error, naming the target's scheme
        #expect(networkKind(error) == .redirectRefused, "\(String(describing: error))")
        guard case .network(let failure) = error as? ImageError else { return }
        #expect(failure.message.contains(String(location.prefix { $0 != ":" })), "\(failure.message)")
        #expect(server.statistics("/away").requests == 1)
    }

    @Test("a redirect to a scheme the configuration allows is followed")
    func allowedRedirect() async throws {
        // Given a redirect to a file: URL of a real file, with file added to the allowed schemes
        let directory = TemporaryDirectory()
        let file = directory.url.appendingPathComponent("body.bin")
        let body = testBytes(1_000, seed: 3)
        try body.write(to: file)
        let server = try startedServer()
        defer { server.stop() }
        server.route("/to-file", .redirect(to: file.absoluteString))
        // When it is loaded
        var configuration = CurlDataLoader.Configuration()
        configuration.allowedSchemes.insert("file")
        let result = try await CurlDataLoader(configuration: configuration)
            .loadData(for: DataRequest(url: server.url("/to-file"))).collect()
        // Then the file's bytes arrive
        #expect(result.body == body)
    }

    @Test("a request whose own scheme is not allowed is an unsupported scheme, with no network access")
    func refusedScheme() async throws {
        // Given an ftp URL and the default schemes (http, https)
        let url = try #require(URL(string: "ftp://127.0.0.1:1/x"))
        // When it is loaded
        let error = await failure(url)
        // Then the scheme is named
        #expect(error as? ImageError == .unsupportedScheme("ftp"))
    }

    @Test("a decompression bomb read by a slow consumer stops at the byte limit: tooLarge, not curl's out of memory",
          arguments: ["gzip", "zstd"])
    func bombWithSlowConsumer(encoding: String) async throws {
        // Given a 32 MiB limit and 1 GiB of zeros, gzip (6.8 MB) or zstd (32 KiB)
        let server = try startedServer()
        defer { server.stop() }
        let body = encoding == "gzip"
            ? GzipBomb.make(copyGroups: (1 << 30) / (258 * 8) + 1)
            : ZstdBomb.make(blocks: (1 << 30) / ZstdBomb.blockSize)
        server.route("/bomb", .init(headers: [("Content-Encoding", encoding)], body: body))
        // When a consumer takes the head, then waits 300 ms before reading on
        // (long enough for curl to fill the back-pressure buffer and more)
        let error = await failure(server.url("/bomb"), { $0.maxResponseBytes = 32 << 20 }, pauseAfterHead: .milliseconds(300))
        // Then the decoded bytes hit the limit
        #expect(error as? ImageError == .tooLarge(.bytes, limit: 32 << 20, actual: nil), "\(String(describing: error))")
        #expect(await server.waitUntil("/bomb") { $0.disconnects.count + $0.completed == 1 })
    }

    @Test("the zstd bomb generator is honest: a small one decodes to exactly its zeros")
    func zstdBombIsValid() async throws {
        // Given 16 blocks (2 MiB of zeros) and a limit above that
        let server = try startedServer()
        defer { server.stop() }
        server.route("/z", .init(headers: [("Content-Encoding", "zstd")], body: ZstdBomb.make(blocks: 16)))
        // When curl loads and decodes it
        let result = try await CurlDataLoader().loadData(for: DataRequest(url: server.url("/z"))).collect()
        // Then every zero arrives, no more
        #expect(result.body.count == 16 * ZstdBomb.blockSize)
        #expect(result.body.allSatisfy { $0 == 0 })
    }
}
