import Foundation
import Logging
import LoopbackServer
import ServiceLifecycle
import Testing
@testable import AsyncWebImage
import AWILocking
import Synchronization

/// `ImageLoader.shutdown()` and `ImageLoader.Service`: transfers cancelled,
/// disk writes finished, the curl and disk threads gone, later calls refused
/// with a typed error; against the real loopback server and a real disk store.
@Suite("Lifecycle: shutdown and the service", .serialized, .timeLimit(.minutes(1)))
struct LoaderLifecycleTests {
    /// Which of the threads `ids` are alive in `/proc/self/task` under a
    /// loader thread's name (other suites' loaders run side by side, so the
    /// threads are told apart by their kernel IDs, not counted by name).
    static func alive(_ ids: [Int32]) -> [Int32] {
        let tasks = Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [])
        return ids.filter { id in
            guard tasks.contains(String(id)) else { return false }
            let name = (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("awi-curl") || name.hasPrefix("awi-disk-io")
        }
    }

    /// Temporary files (half-written entries) under `directory`.
    static func temporaryFiles(_ directory: URL) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
        return files.filter { ($0 as NSString).lastPathComponent.hasPrefix(DiskStore.temporaryPrefix) }
    }

    @Test("shutdown() with 50 loads in flight returns within 1 s; no loader thread, no temporary file; later calls fail with .shutDown")
    func shutdownWithLoadsInFlight() async throws {
        // Given a server holding 50 image responses mid-body, and loads of stored images whose writes are in flight
        let server = LoopbackServer()
        try server.start()
        let gate = Gate()
        defer {
            gate.open(100)
            server.stop()
        }
        let png = try fixture("png", "rgb8.png")
        for index in 0..<50 {
            var response = LoopbackServer.Response(headers: [("Content-Type", "image/png")], body: png)
            response.pause = .init(afterBytes: 20, until: gate.wait)
            server.route("/slow/\(index).png", response)
        }
        for index in 0..<8 { server.route("/fast/\(index).png", .ok(png, contentType: "image/png")) }
        let directory = TemporaryDirectory()
        let disk = DiskStore(directory: directory.url)
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
        var curlConfiguration = CurlDataLoader.Configuration()
        curlConfiguration.maxConcurrentDownloads = 64
        let curl = CurlDataLoader(configuration: curlConfiguration)
        configuration.dataLoader = curl
        let loader = ImageLoader(configuration: configuration)
        #expect(await pipelineEventually { curl.loop.threadID != 0 && disk.executor.kernelThreadID != 0 })
        let threads = [curl.loop.threadID, disk.executor.kernelThreadID]
        #expect(await pipelineEventually { Self.alive(threads).count == 2 })

        let slow = (0..<50).map { index in
            Task { try await loader.response(server.url("/slow/\(index).png")) }
        }
        #expect(await pipelineEventually { (0..<50).allSatisfy { server.statistics("/slow/\($0).png").inFlight == 1 } })
        // Background stores (no .waitStoreCache) still going when shutdown starts
        for index in 0..<8 { _ = try await loader.response(server.url("/fast/\(index).png")) }

        // When the loader is shut down
        let clock = ContinuousClock()
        let started = clock.now
        await loader.shutdown()
        let elapsed = clock.now - started

        // Then it returned within a second, and every load in flight failed with .shutDown
        #expect(elapsed < .seconds(1))
        for task in slow {
            await #expect(throws: ImageError.shutDown) { try await task.value }
        }
        // And the curl and disk threads have ended
        #expect(await pipelineEventually(attempts: 1000) { Self.alive(threads).isEmpty })
        // And no entry was left half-written: no temporary file, every background store complete
        #expect(Self.temporaryFiles(directory.url).isEmpty)
        let store = DiskStore(directory: directory.url)
        for index in 0..<8 {
            #expect(try await store.data(forKey: server.url("/fast/\(index).png").absoluteString) == png)
        }
        await store.shutdown()
        // And later calls fail with the typed error, without a request
        let requestsBefore = server.statistics("/fast/0.png").requests
        await #expect(throws: ImageError.shutDown) { try await loader.response(server.url("/fast/0.png"), options: .fromLoaderOnly) }
        await #expect(throws: ImageError.shutDown) {
            for try await _ in loader.images(server.url("/fast/1.png")) {}
        }
        #expect(server.statistics("/fast/0.png").requests == requestsBefore)
        // And a second shutdown returns at once
        await loader.shutdown()
    }

    @Test("a CurlDataLoader shut down refuses new transfers with .shutDown")
    func curlRefusesAfterShutdown() async throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        server.route("/a", .ok(Data("hello".utf8)))
        let curl = CurlDataLoader()
        await curl.shutdown()
        await #expect(throws: ImageError.shutDown) {
            for try await _ in curl.loadData(for: DataRequest(url: server.url("/a"))) {}
        }
        #expect(server.statistics("/a").requests == 0)
    }

    @Test("ImageLoader.Service records gauges, cleans the disk, and shuts the loader down on graceful shutdown")
    func serviceGracefulShutdown() async throws {
        // Given a loader with an image in memory and on disk, run by the service in a ServiceGroup
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let png = try fixture("png", "rgb8.png")
        server.route("/s.png", .ok(png, contentType: "image/png"))
        let directory = TemporaryDirectory()
        let metrics = RecordingMetricsFactory()
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: DiskStore(directory: directory.url)))
        configuration.dataLoader = CurlDataLoader()
        configuration.metricsFactory = metrics
        let loader = ImageLoader(configuration: configuration)
        _ = try await loader.response(server.url("/s.png"), options: .waitStoreCache)
        let service = ImageLoader.Service(loader: loader, cleanupInterval: .milliseconds(20), gaugeInterval: .milliseconds(10))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let run = Task { try await group.run() }

        // When the gauges and a cleanup have been recorded, and graceful shutdown is triggered
        #expect(await pipelineEventually { !metrics.recorded("awi_disk_cache_size_bytes").isEmpty })
        await group.triggerGracefulShutdown()
        try await run.value

        // Then the gauges saw one image in memory and the stored bytes on disk, and the loader is shut down
        #expect(metrics.recorded("awi_memory_cache_count").last == 1)
        #expect((metrics.recorded("awi_disk_cache_size_bytes").last ?? 0) >= Double(png.count))
        await #expect(throws: ImageError.shutDown) { try await loader.response(server.url("/s.png")) }
    }
}
