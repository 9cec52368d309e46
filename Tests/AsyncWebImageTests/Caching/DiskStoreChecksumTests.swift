import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// The checksum in each entry's trailer (issue 12, finding 6): one bit
/// flipped inside a cached body, length and trailer intact, used to be
/// served as different pixels.
@Suite("DiskStore checksums", .timeLimit(.minutes(1)))
struct DiskStoreChecksumTests {
    private func store(_ directory: URL) -> DiskStore {
        DiskStore(directory: directory, configuration: .init(cleansUpAtStart: false, cleanupInterval: nil))
    }

    /// Flips bit `bit` of the byte at `offset` of the file at `path`, in place.
    private func flip(_ path: String, at offset: UInt64, bit: UInt8 = 0) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: [byte ^ (1 << bit)])
    }

    @Test("the checksum is XXH3-64 (the reference value of the empty input)")
    func xxh3() {
        #expect(DiskEntryTrailer.checksum(of: UnsafeRawBufferPointer(start: nil, count: 0)) == 0x2D06_8005_38D3_94C2)
    }

    @Test("a bit flipped anywhere in the body is a damaged entry: removed, a miss", arguments: [0, 4321, 9999])
    func bitFlip(offset: UInt64) async throws {
        // Given an entry, then one bit of its body flipped (length and trailer intact)
        let root = TemporaryDirectory()
        let store = store(root.url)
        let body = testBytes(10_000, seed: 3)
        try await store.setData(body, forKey: "k", extendedData: Data("etag".utf8))
        let path = store.path(forKey: "k")
        try flip(path, at: offset, bit: 3)
        // When it is read, on either read path
        // Then a miss, counted as damaged, and the file is gone
        #expect(try await store.data(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        let stats = await store.statistics
        #expect(stats.damagedEntries == 1 && stats.hits == 0)
        // and a good write reads back
        try await store.setData(body, forKey: "k", extendedData: nil)
        #expect(try await store.dataWithExtendedData(forKey: "k")?.data == body)
    }

    @Test("an entry of the old format (24-byte trailer, no checksum) is treated as absent and removed")
    func oldFormat() async throws {
        // Given a file in the version-1 format at the key's name
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(Data("seed".utf8), forKey: "other", extendedData: nil)
        let body = testBytes(500, seed: 5)
        var v1 = [UInt8](body) + Array("AWIC".utf8) + [1, 0, 0, 0]
        for value in [UInt64(42), UInt64(body.count)] {
            for shift in stride(from: 0, to: 64, by: 8) { v1.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        let path = store.path(forKey: "k")
        try Data(v1).write(to: URL(fileURLWithPath: path))
        // When read, then absent, and removed
        #expect(try await store.data(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a loader whose cached JPEG rotted on disk fetches it again and shows the right pixels")
    func loaderRefetches() async throws {
        // Given an image loaded once into the disk cache
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let source = try JPEGCoder().encode(TestImages.gray(side: 64, value: 200), as: .jpeg, quality: 0.9)
        server.route("/a.jpg", .ok(source, contentType: "image/jpeg"))
        let root = TemporaryDirectory()
        func loader() -> ImageLoader {
            ImageLoader(configuration: .init(cache: ImageCache(memory: MemoryCache(), disk: store(root.url))))
        }
        let first = try await loader().response(server.url("/a.jpg"), options: [.waitStoreCache])
        let expected = first.image.pixels
        // When one bit in the middle of the cached JPEG's entropy data flips
        let path = store(root.url).path(forKey: server.url("/a.jpg").absoluteString)
        try flip(path, at: UInt64(source.count - 40), bit: 6)
        // Then a fresh loader does not serve it: it fetches again, same pixels
        let second = try await loader().response(server.url("/a.jpg"))
        #expect(second.source == .network)
        #expect(second.image.pixels == expected)
        #expect(server.statistics("/a.jpg").requests == 2)
    }
}
