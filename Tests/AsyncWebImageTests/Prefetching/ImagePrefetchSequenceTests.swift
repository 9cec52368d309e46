import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

@Suite("ImageLoader.prefetch", .timeLimit(.minutes(2)))
struct ImagePrefetchSequenceTests {
    static func serveMany(_ harness: PipelineHarness, prefix: String, count: Int, delay: Duration = .milliseconds(30)) throws -> [URL] {
        let png = try fixture("png", "rgb8.png")
        return (0..<count).map { index in
            let path = "/\(prefix)/\(index).png"
            harness.server.route(path, LoopbackServer.Response(headers: [("Content-Type", "image/png")], body: png, delayBeforeHead: delay))
            return harness.server.url(path)
        }
    }

    @Test("loads every URL into the caches, at most 3 at a time, reporting progress; failures are skipped")
    func prefetches() async throws {
        let harness = try PipelineHarness()
        var urls = try Self.serveMany(harness, prefix: "p", count: 9)
        harness.server.route("/p/missing.png", .status(404))
        urls.insert(harness.server.url("/p/missing.png"), at: 4)

        var seen: [ImageLoader.ImagePrefetchSequence.Progress] = []
        for await progress in harness.loader.prefetch(urls) { seen.append(progress) }

        let last = try #require(seen.last)
        #expect(last == ImageLoader.ImagePrefetchSequence.Progress(finished: 9, skipped: 1, total: 10))
        #expect(last.isComplete)
        #expect(seen.map(\.completed) == seen.map(\.completed).sorted())
        #expect(harness.server.maxInFlight <= 3)
        #expect(harness.server.maxInFlight >= 2)
        for url in urls where !url.path.hasSuffix("missing.png") {
            #expect(await harness.memory.image(forKey: url.absoluteString) != nil)
        }
    }

    @Test("cancelling one prefetch leaves another untouched")
    func independentCancellation() async throws {
        let harness = try PipelineHarness()
        let first = try Self.serveMany(harness, prefix: "a", count: 12, delay: .milliseconds(60))
        let second = try Self.serveMany(harness, prefix: "b", count: 6, delay: .milliseconds(60))
        let loader = harness.loader

        let cancelled = Task { await loader.prefetch(first, maxConcurrentLoads: 2).run() }
        let kept = Task { await loader.prefetch(second, maxConcurrentLoads: 2).run() }
        try await Task.sleep(for: .milliseconds(100))
        cancelled.cancel()
        let cancelledProgress = await cancelled.value
        let keptProgress = await kept.value

        #expect(keptProgress == ImageLoader.ImagePrefetchSequence.Progress(finished: 6, skipped: 0, total: 6))
        #expect(cancelledProgress.finished < 12)
        try await Task.sleep(for: .milliseconds(200))
        let requested = first.map { harness.requests($0.path) }.reduce(0, +)
        #expect(requested < 12, "a cancelled prefetch must not start its remaining loads")
    }

    @Test("a data-only prefetch warms the disk without decoding")
    func dataOnly() async throws {
        let harness = try PipelineHarness()
        let urls = try Self.serveMany(harness, prefix: "d", count: 4, delay: .zero)
        let progress = await harness.loader.prefetch(urls, options: .waitStoreCache, decodes: false).run()
        #expect(progress.finished == 4)
        #expect(harness.decodes.count == 0)
        for url in urls {
            #expect(await harness.disk.contains(url.absoluteString))
            #expect(await harness.memory.image(forKey: url.absoluteString) == nil)
        }
    }

    @Test("an empty prefetch completes at once")
    func empty() async {
        let harness = try? PipelineHarness()
        let progress = await harness?.loader.prefetch([]).run()
        #expect(progress == ImageLoader.ImagePrefetchSequence.Progress(total: 0))
    }
}
