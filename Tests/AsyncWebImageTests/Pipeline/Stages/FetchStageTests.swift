import Foundation
import LoopbackServer
import Logging
import Testing
@testable import AsyncWebImage

@Suite("FetchStage", .timeLimit(.minutes(1)))
struct FetchStageTests {
    static func stage(_ fixture: StageFixture) -> FetchStage {
        FetchStage(
            coders: .builtIn, limiter: ConcurrencyLimiter(limit: 1), telemetry: fixture.telemetry, bodyBudget: nil,
            previewInterval: .milliseconds(100)
        )
    }

    @Test("without a leasing shared tier every server fetches alone")
    func alone() async throws {
        let fixture = StageFixture()
        guard case .alone = try await Self.stage(fixture).fleetLease(for: try await fixture.request()) else { Issue.record("no fleet here"); return }
    }

    @Test("the origin's bytes and head through a coalescer, with progress to the load's subscribers; one request")
    func download() async throws {
        let server = LoopbackServer()
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.route("/fetch.bin", .ok(body, contentType: "image/png", cacheControl: "max-age=60"))
        try server.start()
        defer { server.stop() }
        let fixture = StageFixture()
        let stage = Self.stage(fixture)
        let request = try await fixture.loader.makeRequest(server.url("/fetch.bin"), options: [], context: ImageContext(cache: fixture.cache))
        let coalescer = DownloadCoalescer(loader: CurlDataLoader())
        let tasks = ImageTaskCoalescer()
        let channel = ImageEventChannel()
        defer { channel.terminate() }
        _ = tasks.subscribe(request.taskKey, channel: channel, wantsPreviews: false) { handle in
            do {
                let (head, data) = try await stage.download(
                    request, request.dataRequest, through: coalescer, handle: handle, reservation: nil, logger: Logger(label: "awi.stage-test")
                )
                var result = LoadResult(image: nil, data: data, cacheType: .none, url: request.url)
                if let head { result.headSource = .received(head) }
                handle.finish(.success(result))
            } catch {
                handle.finish(.failure(error))
            }
        }
        var received: Int64 = 0
        var finished: LoadResult?
        while let event = try await channel.next() {
            switch event {
            case .progress(let bytes, _): received = max(received, bytes)
            case .finished(let result): finished = result
            case .preview: Issue.record("no previews were asked for")
            }
        }
        let result = try #require(finished)
        #expect(result.data == body)
        #expect(result.headSource?.head(url: result.url).statusCode == 200)
        #expect(result.headSource?.head(url: result.url).headers[.cacheControl] == "max-age=60")
        #expect(received == Int64(body.count))
        #expect(server.statistics("/fetch.bin").requests == 1)
    }
}
