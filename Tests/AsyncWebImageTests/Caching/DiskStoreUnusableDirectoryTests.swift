import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

/// Cache directories the store cannot create or write: every failure is a
/// typed ``ImageError/diskIO(path:errno:message:)`` and the loader carries on
/// from the network (issue 12, finding 1).
@Suite("DiskStore unusable directories", .timeLimit(.minutes(1)))
struct DiskStoreUnusableDirectoryTests {
    /// Under `/proc/self`, `mkdir` of a missing directory fails with
    /// `ENOENT` even once its parent "exists": before the fix,
    /// `FileIO.createDirectory` alternated between the two forever and the
    /// process died of a stack overflow.
    static let procDirectory = URL(fileURLWithPath: "/proc/self/awi-\(getpid())/cache")

    @Test("a directory under /proc/self gives .diskIO(ENOENT) on write, a miss on read; no crash")
    func procDirectoryStore() async throws {
        // Given a store whose directory can never be created
        let store = DiskStore(
            directory: Self.procDirectory,
            configuration: .init(cleansUpAtStart: false, cleanupInterval: nil)
        )
        // When writing
        // Then a typed error naming a path under /proc, not a crash
        do {
            try await store.setData(Data("x".utf8), forKey: "k", extendedData: nil)
            Issue.record("a write under /proc/self succeeded")
        } catch let ImageError.diskIO(path, code, _) {
            #expect(code == ENOENT || code == EACCES || code == EPERM, "errno \(code)")
            #expect(path.hasPrefix("/proc/self/"))
        }
        // and reads are misses
        #expect(try await store.data(forKey: "k") == nil)
        #expect(await store.statistics.failedWrites == 1)
    }

    @Test("FileIO.createDirectory under /proc/self ends with a typed error")
    func createDirectoryEnds() {
        #expect(throws: ImageError.self) { try FileIO.createDirectory(Self.procDirectory.path) }
    }

    @Test("a loader whose disk cache cannot be created still loads from the network")
    func loaderDegradesToMiss() async throws {
        // Given a loader whose disk tier lives under /proc/self, and a server with an image
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let jpeg = try JPEGCoder().encode(TestImages.gray(side: 16, value: 90), as: .jpeg, quality: 0.9)
        server.route("/a.jpg", .ok(jpeg, contentType: "image/jpeg"))
        let disk = DiskStore(directory: Self.procDirectory, configuration: .init(cleansUpAtStart: false, cleanupInterval: nil))
        let loader = ImageLoader(configuration: .init(cache: ImageCache(memory: MemoryCache(), disk: disk)))
        // When loading, waiting for the (failing) cache write
        let response = try await loader.response(server.url("/a.jpg"), options: [.waitStoreCache])
        // Then the image comes from the network, and the write failed quietly
        #expect(response.source == .network)
        let image = response.image
        #expect(image.width == 16 && image.height == 16)
        #expect(await disk.statistics.failedWrites == 1)
        #expect(server.statistics("/a.jpg").requests == 1)
    }
}
