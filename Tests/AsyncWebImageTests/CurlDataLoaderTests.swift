import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

@Suite("CurlDataLoader", .timeLimit(.minutes(2)))
struct CurlDataLoaderTests {
    @Test("loads a body with its head and sends the default headers")
    func loadsBody() async throws {
        // Given a server with a 300 KB image
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(300_000)
        server.route("/a.jpg", .ok(body, contentType: "image/jpeg"))
        let loader = CurlDataLoader()

        // When it is loaded
        let result = try await loader.loadData(for: DataRequest(url: server.url("/a.jpg"))).collect()

        // Then the bytes, the head and the request headers are right
        #expect(result.body == body)
        #expect(result.head?.statusCode == 200)
        #expect(result.head?.mimeType == "image/jpeg")
        #expect(result.head?.expectedContentLength == 300_000)
        let seen = server.statistics("/a.jpg")
        #expect(seen.requests == 1)
        #expect(seen.requestHeaders.first?["user-agent"] == "AsyncWebImage/\(CurlDataLoader.version)")
        #expect(seen.requestHeaders.first?["accept"] == "image/*,*/*;q=0.8")
        #expect(await eventually { loader.outstandingTransfers == 0 && loader.liveEasyHandles == 0 })
    }
}
