import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
import AsyncWebImageAllFormats
#endif

/// A broken cache directory under a working `ImageLoader`: loads still
/// succeed (the disk is a copy, not the source), nothing half-written is
/// ever served, and what was cached survives the fault.
@Suite("Faults: cache directory", .timeLimit(.minutes(1)))
struct FaultCacheTests {
    private func cacheDirectory(_ rig: FaultRig) -> URL { rig.harness.directory.appendingPathComponent("cache") }

    /// The helper executable built beside this test binary.
    private func helper() throws -> URL {
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let helper = binaries.appendingPathComponent("awi-cache-stress")
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        return helper
    }

    @Test("a read-only cache directory: the load succeeds from the network, stays in memory only, the cached entry survives")
    func readOnlyDirectory() async throws {
        // Given a cached image, then the directory made unwritable (chattr +i as root, where mode bits bind nobody)
        let rig = try await FaultRig.make()
        let directory = cacheDirectory(rig)
        try FileFlags.makeReadOnly(directory.path)
        defer { try? FileFlags.makeWritable(directory.path) }
        let url = rig.harness.serve("/new.png", try noisePNG(side: 32))
        // When a new image is loaded and waits for its store
        let response = try await rig.loader.response(url, options: .waitStoreCache)
        // Then it loads, the failed write is counted, not thrown, and only memory has it
        #expect(response.source == .network)
        #expect(response.image.width > 0)
        #expect(await rig.harness.disk.statistics.failedWrites >= 1)
        #expect(await !rig.harness.disk.contains(url.absoluteString))
        #expect(try await rig.loader.response(url).source == .memory)
        // and the entry cached before is still served from disk
        let fromDisk = try await rig.harness.restartedLoader().response(rig.kept)
        #expect(fromDisk.source == .disk)
        #expect(fromDisk.image.hasSamePixels(as: rig.keptImage))
    }

    @Test("a cache directory that cannot be created (its parent is a file): loads succeed, nothing is stored")
    func uncreatableDirectory() async throws {
        // Given a loader whose disk directory lies under a regular file
        let root = TemporaryDirectory()
        let file = root.appending("file")
        try Data("x".utf8).write(to: file)
        let server = try startedServer()
        defer { server.stop() }
        let disk = DiskStore(directory: file.appendingPathComponent("cache"))
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
        configuration.dataLoader = CurlDataLoader()
        let loader = ImageLoader(configuration: configuration)
        let png = try noisePNG(side: 32)
        server.route("/a.png", .ok(png, contentType: "image/png"))
        let url = server.url("/a.png")
        // When an image is loaded twice
        let first = try await loader.response(url, options: .waitStoreCache)
        let second = try await loader.response(url)
        // Then both succeed (network, then memory), pixel-correct, and the disk holds nothing
        #expect(first.source == .network)
        #expect(second.source == .memory)
        #expect(second.image.hasSamePixels(as: try ImageCoderRegistry.allFormats.decode(png)))
        #expect(await !disk.contains(url.absoluteString))
        #expect(await disk.statistics.failedWrites == 1)
        #expect(server.statistics("/a.png").requests == 1)
    }

    @Test("the cache directory deleted during a download: the load succeeds and the directory comes back")
    func deletedWhileInUse() async throws {
        // Given a cached image and a download in progress
        let rig = try await FaultRig.make()
        let png = try noisePNG(side: 48)
        rig.server.route("/slow.png", trickled(png, pieces: 8, every: .milliseconds(50), contentType: "image/png"))
        let url = rig.server.url("/slow.png")
        let load = Task { try await rig.loader.response(url, options: .waitStoreCache) }
        #expect(await rig.server.waitUntil("/slow.png") { $0.bodyBytesSent > 0 })
        // When the whole cache directory is deleted under it
        try FileManager.default.removeItem(at: cacheDirectory(rig))
        let response = try await load.value
        // Then the load succeeds pixel-correct and is stored in a recreated directory
        #expect(response.source == .network)
        #expect(response.image.hasSamePixels(as: try ImageCoderRegistry.allFormats.decode(png)))
        let restarted = rig.harness.restartedLoader()
        #expect(try await restarted.response(url).source == .disk)
        // and the image deleted from disk is still in memory, and reloads from the network in a new loader
        #expect(try await rig.loader.response(rig.kept).source == .memory)
        let reloaded = try await restarted.response(rig.kept)
        #expect(reloaded.source == .network)
        #expect(reloaded.image.hasSamePixels(as: rig.keptImage))
        #expect(rig.harness.requests("/kept.png") == 2)
    }

    @Test("a full device (file size limit, child process): the big load succeeds uncached, the small entry survives")
    func fullDevice() async throws {
        // Given a small image (under 4 KiB) and a big one (~12 KB) on the server
        let server = try startedServer()
        defer { server.stop() }
        server.route("/small.png", .ok(try fixture("png", "rgba8.png"), contentType: "image/png"))
        server.route("/big.png", .ok(try noisePNG(side: 64), contentType: "image/png"))
        let root = TemporaryDirectory()
        // When a child process with a 4 KiB file size limit loads both through an ImageLoader
        let process = Process()
        let output = Pipe()
        process.executableURL = try helper()
        process.arguments = ["--full-loader", root.appending("cache").path, server.url("/small.png").absoluteString, server.url("/big.png").absoluteString]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Then it reports success: big loaded and held in memory only, small still on disk, no stray file
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.hasPrefix("ok"), "\(text)")
        #expect(server.statistics("/big.png").requests == 1)
        #expect(server.statistics("/small.png").requests == 1)
    }

    @Test("a corrupted cache file is a miss: removed, downloaded again, stored again", arguments: ["truncated", "flipped", "garbage", "empty"])
    func corruptedFile(damage: String) async throws {
        // Given a cached image whose file is then damaged
        let rig = try await FaultRig.make()
        let path = rig.harness.disk.path(forKey: rig.kept.absoluteString)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        switch damage {
        case "truncated": bytes.removeLast(bytes.count / 2)
        case "flipped": bytes[bytes.count / 2] ^= 0xFF
        case "garbage": bytes = [UInt8](testBytes(bytes.count, seed: 9))
        default: bytes = []
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // When a new loader (no memory) loads it
        let response = try await rig.harness.restartedLoader().response(rig.kept, options: .waitStoreCache)
        // Then the damaged entry was not served: downloaded again, pixel-correct, and stored whole again
        #expect(response.source == .network)
        #expect(response.image.hasSamePixels(as: rig.keptImage))
        #expect(rig.harness.requests("/kept.png") == 2)
        let again = try await rig.harness.restartedLoader().response(rig.kept)
        #expect(again.source == .disk)
        #expect(again.image.hasSamePixels(as: rig.keptImage))
    }

    @Test("two processes and this one load through one disk-only cache directory under load: every image pixel-correct")
    func sharedDirectory() async throws {
        // Given 12 images, each of its own width and gray value
        let server = try startedServer()
        defer { server.stop() }
        let count = 12
        for index in 0..<count {
            let image = try Image(width: 8 + index, height: 8, pixelFormat: .gray8, pixels: [UInt8](repeating: pixelValue(index), count: (8 + index) * 8))
            server.route("/img/\(index).png", .ok(try ImageCoderRegistry.allFormats.encode(image, as: .png), contentType: "image/png"))
        }
        let root = TemporaryDirectory()
        let directory = root.appending("cache")
        // When two helper processes load, store and remove them in one directory, 150 iterations each
        var processes: [(Process, Pipe)] = []
        for _ in 0..<2 {
            let process = Process()
            let output = Pipe()
            process.executableURL = try helper()
            process.arguments = ["--loader", directory.path, server.baseURL.absoluteString, "\(count)", "150"]
            process.standardOutput = output
            try process.run()
            processes.append((process, output))
        }
        // (and this process does the same with its own loader, disk tier only)
        let disk = DiskStore(directory: directory, configuration: .init(maxSize: nil, cleansUpAtStart: false, cleanupInterval: nil))
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
        configuration.dataLoader = CurlDataLoader()
        configuration.defaultContext.storeCacheType = .disk
        configuration.defaultContext.queryCacheType = .disk
        let loader = ImageLoader(configuration: configuration)
        var fromDisk = 0
        for iteration in 0..<150 {
            let index = iteration * 5 % count
            let response = try await loader.response(server.url("/img/\(index).png"), options: .waitStoreCache)
            if response.source == .disk { fromDisk += 1 }
            let image = response.image
            #expect(image.width == 8 + index)
            #expect(image.pixel(x: image.width - 1, y: 7)?.first == pixelValue(index))
        }
        // Then every process exits clean (no wrong image, no error) with disk hits,
        for (process, output) in processes {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(text)")
            #expect(text.contains("wrong 0 errors 0"), "\(text)")
            #expect(!text.contains("disk 0 "), "\(text)")
        }
        #expect(fromDisk > 0)
        // and nothing damaged or temporary is left in the directory
        #expect(await disk.statistics.damagedEntries == 0)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        #expect(!names.contains { $0.hasPrefix(DiskStore.temporaryPrefix) })
    }

    /// The gray value of every pixel of image `index` (as the helper's `pixelValue`).
    private func pixelValue(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: 40 + index * 13) }
}
