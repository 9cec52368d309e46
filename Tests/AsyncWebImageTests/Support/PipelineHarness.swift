import Foundation
import LoopbackServer
import Synchronization
@testable import AsyncWebImage
import AWILocking
import AsyncWebImageAllFormats

/// A real decoder that counts its calls: the built-in coders behind a
/// counter, registered first in the loader's registry. Counting decodes is
/// the point of the tests that use it; the pixels are real.
struct CountingCoder: ImageDecoding {
    let counter: Counter
    let base = ImageCoderRegistry.allFormats

    final class Counter: Sendable {
        private let value = Lock(0)
        var count: Int { value.withLock { $0 } }
        func increment() { value.withLock { $0 += 1 } }
    }

    func canDecode(_ data: Data) -> Bool { base.decoder(for: data) != nil }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        counter.increment()
        return try base.decode(data, options: options)
    }

    func makeProgressiveDecoder(options: ImageDecodingOptions) -> (any ProgressiveImageDecoding)? {
        // Progressive decoders are chosen per format by the real registry.
        nil
    }
}

/// A loopback server, a cache in a temporary directory and a loader wired
/// to both: what every pipeline test starts from.
final class PipelineHarness: Sendable {
    let server = LoopbackServer()
    let directory: URL
    let cache: ImageCache
    let memory: MemoryCache
    let disk: DiskStore
    let decodes = CountingCoder.Counter()
    let loader: ImageLoader
    let dataLoader: CurlDataLoader

    init(
        progressiveCoders: Bool = false,
        configure: (inout ImageLoader.Configuration) -> Void = { _ in }
    ) throws {
        try server.start()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-pipeline-\(UUID().uuidString)")
        memory = MemoryCache()
        disk = DiskStore(directory: directory.appendingPathComponent("cache"))
        cache = ImageCache(memory: memory, disk: disk)
        dataLoader = CurlDataLoader()
        var configuration = ImageLoader.Configuration(cache: cache)
        configuration.dataLoader = dataLoader
        configuration.previewInterval = .zero
        if !progressiveCoders {
            var coders = ImageCoderRegistry.allFormats
            coders.add(decoder: CountingCoder(counter: decodes))
            configuration.coders = coders
        } else {
            configuration.coders = .allFormats
        }
        configure(&configuration)
        loader = ImageLoader(configuration: configuration)
    }

    /// A second loader over the same disk directory but a new memory cache:
    /// what a restarted process sees.
    func restartedLoader(configure: (inout ImageLoader.Configuration) -> Void = { _ in }) -> ImageLoader {
        let cache = ImageCache(memory: MemoryCache(), disk: DiskStore(directory: directory.appendingPathComponent("cache")))
        var configuration = ImageLoader.Configuration(cache: cache)
        configuration.dataLoader = dataLoader
        var coders = ImageCoderRegistry.allFormats
        coders.add(decoder: CountingCoder(counter: decodes))
        configuration.coders = coders
        configure(&configuration)
        return ImageLoader(configuration: configuration)
    }

    func serve(_ path: String, _ data: Data, contentType: String = "image/png") -> URL {
        server.route(path, .ok(data, contentType: contentType))
        return server.url(path)
    }

    /// Serves `data` at `path`, holding every transfer after `afterBytes`
    /// body bytes until `gate` lets it go on: a download that stays in
    /// flight for as long as the test needs, with no timing involved.
    func serveHeld(_ path: String, _ data: Data, contentType: String, afterBytes: Int, by gate: Gate) -> URL {
        var response = LoopbackServer.Response(headers: [("Content-Type", contentType)], body: data)
        response.pause = .init(afterBytes: afterBytes, until: gate.wait)
        server.route(path, response)
        return server.url(path)
    }

    func requests(_ path: String) -> Int { server.statistics(path).requests }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Fixture bytes by folder and name (`Fixtures/<folder>/<name>`).
func fixture(_ folder: String, _ name: String) throws -> Data {
    guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
        throw JPEGFixtures.Missing(description: "no Fixtures folder in the test bundle")
    }
    return try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(name))
}

/// Polls `condition` every millisecond until it holds, at most `attempts` times.
func pipelineEventually(attempts: Int = 10_000, _ condition: () async throws -> Bool) async rethrows -> Bool {
    for _ in 0..<attempts {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return try await condition()
}
