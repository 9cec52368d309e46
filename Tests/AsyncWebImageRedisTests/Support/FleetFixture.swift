import Foundation
import LoopbackServer
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// One server of a fleet, as the fleet tests make it in one process: its
/// own memory and disk, a shared `RedisStore`.
struct FleetNode: Sendable {
    let loader: ImageLoader
    let disk: DiskStore
    let directory: URL
    let shared: RedisStore

    func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// What the fleet tests load: a small PNG from an origin on loopback.
enum FleetFixture {
    /// An 8-bit RGB PNG (the core's fixture `png/rgb8.png`).
    static func png() throws -> Data {
        guard let url = Bundle.module.url(forResource: "Fixtures/rgb8", withExtension: "png") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }

    /// A body sent in `pieces` pieces, `interval` apart: a slow origin.
    static func trickled(_ body: Data, pieces: Int, every interval: Duration) -> LoopbackServer.Response {
        LoopbackServer.Response(
            headers: [("Content-Type", "image/png")],
            body: body,
            trickle: .init(bytesPerPiece: (body.count + pieces - 1) / pieces, interval: interval)
        )
    }

    /// A loader with its own memory and disk over `shared`.
    ///
    /// - Parameters:
    ///   - directory: The disk's directory: a new one by default, another
    ///     node's for a loader on the same disk.
    ///   - configure: Changes to the loader's configuration.
    static func loader(
        shared: RedisStore, httpCacheMode: ImageLoader.HTTPCacheMode? = nil, directory: URL? = nil,
        configure: (inout ImageLoader.Configuration) -> Void = { _ in }
    ) throws -> FleetNode {
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("awi-redis-fleet-\(UUID().uuidString)")
        let disk = DiskStore(directory: directory)
        let cache = ImageCache(memory: MemoryCache(), disk: disk, sharedTier: shared)
        var configuration = ImageLoader.Configuration(cache: cache)
        configuration.dataLoader = CurlDataLoader()
        if let httpCacheMode { configuration.httpCacheMode = httpCacheMode }
        configure(&configuration)
        return FleetNode(loader: ImageLoader(configuration: configuration), disk: disk, directory: directory, shared: shared)
    }
}
