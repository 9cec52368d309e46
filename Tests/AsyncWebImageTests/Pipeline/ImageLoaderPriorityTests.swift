import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// Priority follows the task through the loader: a caller of `image(_:)` or
/// `events(_:)` whose task is escalated while it waits promotes the shared
/// work, and the work's download then moves ahead in the transfer queue.
/// Order is read from the server's log.
@Suite("ImageLoader: priority follows the task", .timeLimit(.minutes(1)))
struct ImageLoaderPriorityTests {
    /// A one-slot curl loader held by a slow `/block`, and two low-priority
    /// loads (`/b` first, then `/a`) queued behind it from low-priority tasks.
    private func queued(
        _ harnessConfigure: @escaping (inout ImageLoader.Configuration) -> Void = { _ in }, useEvents: Bool = false
    ) async throws -> (PipelineHarness, Task<Void, any Error>, a: Task<Void, any Error>, b: Task<Void, any Error>) {
        var curl = CurlDataLoader.Configuration()
        curl.maxConcurrentDownloads = 1
        let dataLoader = CurlDataLoader(configuration: curl)
        let harness = try PipelineHarness { $0.dataLoader = dataLoader; harnessConfigure(&$0) }
        let png = try ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 8), as: .png)
        harness.server.route("/block.png", .init(headers: [("Content-Type", "image/png")], body: png, delayBeforeHead: .milliseconds(400)))
        _ = harness.serve("/a.png", png)
        let bURL = harness.serve("/b.png", png)
        let blockURL = harness.server.url("/block.png")
        let loader = harness.loader
        let blocker = Task { _ = try await loader.response(blockURL) }
        #expect(await eventually { harness.requests("/block.png") == 1 })
        let b = Task(priority: .low) { _ = try await loader.response(for: ImageRequest(url: bURL, priority: .low)) }
        #expect(await eventually { dataLoader.outstandingTransfers == 2 })
        let a = Task(priority: .low) {
            if useEvents {
                for try await _ in loader.events(for: ImageRequest(url: harness.server.url("/a.png"), priority: .low)) {}
            } else {
                _ = try await loader.image(for: ImageRequest(url: harness.server.url("/a.png"), priority: .low))
            }
        }
        #expect(await eventually { dataLoader.outstandingTransfers == 3 })
        return (harness, blocker, a, b)
    }

    private func order(_ harness: PipelineHarness) -> [String] {
        harness.server.requestLog.filter { ["/a.png", "/b.png", "/block.png"].contains($0) }
    }

    @Test("baseline: two low-priority loads are fetched in the order they came")
    func baseline() async throws {
        let (harness, blocker, a, b) = try await queued()
        try await blocker.value
        try await a.value
        try await b.value
        #expect(order(harness) == ["/block.png", "/b.png", "/a.png"])
    }

    @Test("escalating the task awaiting image(_:) promotes its queued download ahead of the other", arguments: [false, true])
    func escalationPromotes(useEvents: Bool) async throws {
        let (harness, blocker, a, b) = try await queued(useEvents: useEvents)
        // When the task waiting on /a is escalated, as awaiting it from a high-priority task does
        a.escalatePriority(to: .high)
        try await blocker.value
        try await a.value
        try await b.value
        // Then /a was fetched before /b, once each
        #expect(order(harness) == ["/block.png", "/a.png", "/b.png"])
        #expect(harness.requests("/a.png") == 1)
    }
}
