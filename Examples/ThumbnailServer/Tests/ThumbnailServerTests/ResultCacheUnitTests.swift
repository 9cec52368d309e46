import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// The pure parts, in process: the result cache's memory bound and the
/// `Accept` negotiation.
struct ResultCacheUnitTests {
    static func entry(bytes: Int) -> ResultCache.Entry {
        let body = Data(repeating: 7, count: bytes)
        return ResultCache.Entry(body: body, format: .jpeg, entityTag: EntityTag(parameters: "k", body: body))
    }

    @Test("the memory tier keeps at most its bytes, evicting the least recently used")
    func leastRecentlyUsedByBytes() {
        var lru = ByteBoundedLRU(limit: 1000)
        lru.insert(Self.entry(bytes: 400), forKey: "a")
        lru.insert(Self.entry(bytes: 400), forKey: "b")
        #expect(lru.value(forKey: "a") != nil)  // a is now more recent than b
        lru.insert(Self.entry(bytes: 400), forKey: "c")
        #expect(lru.totalBytes == 800)
        #expect(lru.value(forKey: "b") == nil)
        #expect(lru.value(forKey: "a") != nil)
        #expect(lru.value(forKey: "c") != nil)
        // Bigger than the whole bound: not kept, nothing evicted for it.
        lru.insert(Self.entry(bytes: 1001), forKey: "d")
        #expect(lru.value(forKey: "d") == nil)
        #expect(lru.totalBytes == 800)
        // Many hits keep the recency queue bounded and the entries intact.
        for _ in 0..<10_000 { _ = lru.value(forKey: "a") }
        #expect(lru.value(forKey: "c") != nil)
        #expect(lru.totalBytes == 800)
    }

    @Test("Accept: AVIF before WebP, q=0 refuses, */* alone is JPEG/PNG", arguments: [
        ("image/avif,image/webp,*/*", ImageFormat?.some(.avif)),
        ("image/webp,image/avif;q=0", .some(.webp)),
        ("image/webp;q=0.5", .some(.webp)),
        ("text/html,*/*;q=0.8", nil),
        ("IMAGE/AVIF", .some(.avif)),
        ("", nil),
        // A weight that is no qvalue (RFC 9110 §12.4.2: 0 to 1) accepts nothing.
        ("image/webp;q=nan, image/avif;q=-1", nil),
        ("image/avif;q=inf,image/webp;q=abc", nil),
        ("image/avif;q=2,image/webp;q=1.000", .some(.webp)),
    ])
    func negotiation(accept: String, expected: ImageFormat?) {
        #expect(ThumbnailController.negotiateFormat(accept: accept) == expected)
    }

    @Test("imgproxy's signing example verifies (key 'secret', salt 'hello')")
    func signingExample() throws {
        let signer = try #require(URLSigner(keyHex: "736563726574", saltHex: "68656C6C6F"))
        // HMAC-SHA256("secret", "hello" + path), from Python's hmac module.
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        let expected = String(decoding: try ServerHarness.run("/usr/bin/env", ["python3", "-c", """
        import base64, hashlib, hmac, sys
        print(base64.urlsafe_b64encode(hmac.new(b"secret", b"hello" + sys.argv[1].encode(), hashlib.sha256).digest()).rstrip(b"=").decode())
        """, path]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signer.signature(of: path) == expected)
        #expect(signer.verify(signature: expected, path: path))
        #expect(!signer.verify(signature: expected, path: path + "x"))
        #expect(!signer.verify(signature: String(expected.dropLast()), path: path))
        #expect(URLSigner(keyHex: "zz", saltHex: "") == nil)
    }

    @Test("a lower tier's value whose body changed (one byte, truncated) or that lacks its tag is a miss, never an answer")
    func corruptedLowerTier() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("result-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskStore(directory: directory)
        // Through the protocol the result cache uses (DiskStore's own methods are synchronous).
        let disk: any DataCaching = store
        let body = try TestImages.gradient(width: 64, height: 48, as: .png)
        let writer = ResultCache(memoryBytes: 0, disk: disk, shared: nil)
        let written = writer.store(body, format: .png, forKey: "k")
        await writer.writes.waitUntilIdle()
        // A reader with an empty memory tier (another process) finds it
        let reader = ResultCache(memoryBytes: 0, disk: disk, shared: nil)
        let found = try #require(await reader.entry(forKey: "k"))
        #expect(found.tier == .disk && found.entry.body == body && found.entry.entityTag == written.entityTag)
        let stored = try #require(try await disk.dataWithExtendedData(forKey: "k"))
        var flipped = body
        flipped[body.count / 2] ^= 0x01
        for (data, extendedData) in [
            (flipped, stored.extendedData), (body.prefix(body.count - 10), stored.extendedData),
            (body, Data("png".utf8)),
        ] {
            try await disk.setData(Data(data), forKey: "k", extendedData: extendedData)
            #expect(await reader.entry(forKey: "k") == nil)
        }
        await store.shutdown()
    }
}
