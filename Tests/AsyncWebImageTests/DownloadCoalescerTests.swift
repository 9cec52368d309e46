import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

@Suite("DownloadCoalescer", .timeLimit(.minutes(2)))
struct DownloadCoalescerTests {
    @Test("100 concurrent subscribers share one request and get identical bytes")
    func hundredSubscribers() async throws {
        // Given a 200 KB body trickled over about 200 ms
        let server = try startedServer()
        defer { server.stop() }
        let body = testBytes(200_000, seed: 7)
        server.route("/shared.jpg", trickled(body, pieces: 10, every: .milliseconds(20)))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let request = DataRequest(url: server.url("/shared.jpg"))

        // When 100 tasks download it at once
        let results = try await withThrowingTaskGroup(of: CollectedDownload.self) { group in
            for _ in 0..<100 { group.addTask { try await coalescer.download(request).collect() } }
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
