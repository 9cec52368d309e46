import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AWILocking
import AsyncWebImageAllFormats

/// The loader reads, decodes and writes through its ``ImageCache``: the
/// cache's coders reach every decode, and disk write failures are reported.
@Suite("ImageLoader: loads go through ImageCache", .timeLimit(.minutes(2)))
struct ImageLoaderCacheTests {
    /// A loader on a cache built with `coders` (nothing set on the loader's own configuration).
    /// A loader whose coders are set first and its cache after: the
    /// coders must survive the cache being set (they once lived on the
    /// cache, and setting it dropped them).
    static func loader(cache: ImageCache, coders: ImageCoderRegistry) -> ImageLoader {
        var configuration = ImageLoader.Configuration()
        configuration.coders = coders
        configuration.cache = cache
        configuration.dataLoader = CurlDataLoader()
        return ImageLoader(configuration: configuration)
    }

    @Test("the configuration's coders, set before the cache, decode the network load and the disk hit of a new loader")
    func configurationCodersDecodeEverything() async throws {
        // Given a server with an image in a format only a custom coder reads
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        server.route("/a.tsti", .ok(CountingDecoder.encode(side: 3, value: 42)))
        let url = server.url("/a.tsti")
        let directory = TemporaryDirectory()
        let decoder = CountingDecoder()
        var coders = ImageCoderRegistry.allFormats
        coders.add(decoder: decoder)

        // When a loader with that coder loads it, and a second
        // loader on a new cache over the same directory loads it again
        let first = try await Self.loader(cache: ImageCache(memory: MemoryCache(), disk: DiskStore(directory: directory.url)), coders: coders)
            .response(url, options: .waitStoreCache)
        let second = try await Self.loader(cache: ImageCache(memory: MemoryCache(), disk: DiskStore(directory: directory.url)), coders: coders)
            .response(url)

        // Then both decodes went through the custom coder
        #expect(first.source == .network)
        #expect(second.source == .disk)
        for response in [first, second] {
            let image = response.image
            #expect(image.width == 3)
            #expect(image.pixels == [UInt8](repeating: 42, count: 9))
        }
        #expect(decoder.counts.withLock { $0.calls } == 2)
        #expect(server.statistics("/a.tsti").requests == 1)
    }

    @Test("a .waitStoreCache load on a read-only cache directory reports the failed write; others are counted")
    func waitStoreCacheReportsWriteFailure() async throws {
        // Given a loader whose cache directory exists and is then made read-only
        let harness = try PipelineHarness()
        let png = try fixture("png", "rgb8.png")
        let warm = harness.serve("/warm.png", png)
        _ = try await harness.loader.response(warm, options: .waitStoreCache)
        let directory = harness.directory.appendingPathComponent("cache").path
        try FileFlags.makeReadOnly(directory)
        defer { try? FileFlags.makeWritable(directory) }
        let url = harness.serve("/new.png", png)
        let cache = harness.loader.configuration.cache
        let failuresBefore = cache.diskWriteFailureCount

        // When a new image is loaded waiting for its store
        let response = try await harness.loader.response(url, options: .waitStoreCache)

        // Then the load succeeds and says its store failed
        #expect(response.source == .network)
        #expect(response.image.width > 0)
        guard case .diskIO? = response.storeError else {
            Issue.record("expected a diskIO store error, got \(String(describing: response.storeError))")
            return
        }
        #expect(cache.diskWriteFailureCount == failuresBefore + 1)
        #expect(await !harness.disk.contains(url.absoluteString))

        // And a load that does not wait has its failure counted, not lost
        let other = harness.serve("/other.png", png)
        let unwaited = try await harness.loader.response(other)
        #expect(unwaited.storeError == nil)
        #expect(await pipelineEventually { cache.diskWriteFailureCount == failuresBefore + 2 })
    }

    @Test("a damaged disk entry is removed by the cache and the load downloads again")
    func damagedEntryIsCondemned() async throws {
        // Given garbage stored under the URL's key
        let harness = try PipelineHarness()
        let png = try fixture("png", "rgb8.png")
        let url = harness.serve("/d.png", png)
        try await harness.disk.setData(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]), forKey: url.absoluteString)

        // When the loader loads it
        let response = try await harness.loader.response(url, options: .waitStoreCache)

        // Then it came from the network and the disk holds the good data
        #expect(response.source == .network)
        #expect(harness.requests("/d.png") == 1)
        #expect(try await harness.disk.data(forKey: url.absoluteString) == png)
    }
}
