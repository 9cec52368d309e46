import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// A pipeline harness with an image already cached (memory and disk) and a
/// data loader configured for the fault at hand: what every fault case
/// starts from, and the checks every fault case ends with.
struct FaultRig {
    let harness: PipelineHarness
    let dataLoader: CurlDataLoader
    /// An image loaded (and stored on disk) before the fault.
    let kept: URL
    let keptImage: Image

    static func make(_ configure: (inout CurlDataLoader.Configuration) -> Void = { _ in }) async throws -> FaultRig {
        var configuration = CurlDataLoader.Configuration()
        configure(&configuration)
        let dataLoader = CurlDataLoader(configuration: configuration)
        let harness = try PipelineHarness { $0.dataLoader = dataLoader }
        let png = try fixture("png", "rgba8.png")
        let kept = harness.serve("/kept.png", png)
        let response = try await harness.loader.response(kept, options: .waitStoreCache)
        try #require(response.source == .network)
        return FaultRig(harness: harness, dataLoader: dataLoader, kept: kept, keptImage: response.image)
    }

    var loader: ImageLoader { harness.loader }
    var server: LoopbackServer { harness.server }

    /// The error a load of `url` ends with (nil when it succeeds).
    func failure(_ url: URL, options: ImageOptions = []) async -> (any Error)? {
        do {
            _ = try await loader.response(url, options: options)
            return nil
        } catch {
            return error
        }
    }

    /// After a failed load of `failed`: no memory or disk entry for it, no
    /// download, image task or curl handle left, and the image cached
    /// before still loads from memory and, in a new loader, from disk with
    /// the same pixels and no request.
    func expectNothingCachedNothingLost(after failed: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let key = failed.absoluteString
        #expect(await harness.memory.image(forKey: key) == nil, "memory entry for a failed load", sourceLocation: sourceLocation)
        #expect(await !harness.disk.contains(key), "disk entry for a failed load", sourceLocation: sourceLocation)
        let drained = await pipelineEventually(attempts: 5_000) {
            await loader.downloads.transferCount == 0 && loader.tasks.count == 0
                && dataLoader.outstandingTransfers == 0 && dataLoader.liveEasyHandles == 0
        }
        #expect(drained, "work left in flight", sourceLocation: sourceLocation)
        let fromMemory = try await loader.response(kept)
        #expect(fromMemory.source == .memory, sourceLocation: sourceLocation)
        let fromDisk = try await harness.restartedLoader().response(kept)
        #expect(fromDisk.source == .disk, sourceLocation: sourceLocation)
        #expect(fromDisk.image.hasSamePixels(as: keptImage), sourceLocation: sourceLocation)
        #expect(harness.requests("/kept.png") == 1, "the cached image was downloaded again", sourceLocation: sourceLocation)
    }
}

/// A PNG of `side`×`side` noise (incompressible, so its size is about 3·side² bytes).
func noisePNG(side: Int, seed: UInt64 = 3) throws -> Data {
    let pixels = [UInt8](testBytes(side * side * 3, seed: seed))
    let image = try Image(width: side, height: side, pixelFormat: .rgb8, pixels: pixels)
    return try ImageCoderRegistry.allFormats.encode(image, as: .png)
}
