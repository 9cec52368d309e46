import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// The pure parts, in process: the result cache's memory bound and the
/// `Accept` negotiation.
struct ResultCacheUnitTests {
    static func entry(bytes: Int) -> ResultCache.Entry {
        let body = Data(repeating: 7, count: bytes)
        return ResultCache.Entry(body: body, format: .jpeg, entityTag: EntityTag(parameters: "k", body: body), freshness: fresh)
    }

    /// Fresh for an hour from now.
    static var fresh: ResultFreshness {
        ResultFreshness(sharedExpiry: Date().addingTimeInterval(3600), clientExpiry: Date().addingTimeInterval(3600), mustRevalidate: false)
    }

    @Test("the memory tier keeps at most its bytes, keys and overhead counted, evicting the least recently used")
    func leastRecentlyUsedByBytes() {
        let cost = BoundedLRU<ResultCache.Entry>.cost(key: "a", valueBytes: 400)
        #expect(cost == 1 + 400 + BoundedLRU<ResultCache.Entry>.entryOverhead)
        var lru = BoundedLRU<ResultCache.Entry>(limit: 3 * cost - 1, maxCount: 100)
        lru.insert(Self.entry(bytes: 400), valueBytes: 400, forKey: "a")
        lru.insert(Self.entry(bytes: 400), valueBytes: 400, forKey: "b")
        #expect(lru.value(forKey: "a") != nil)  // a is now more recent than b
        lru.insert(Self.entry(bytes: 400), valueBytes: 400, forKey: "c")
        #expect(lru.totalCost == 2 * cost)
        #expect(lru.value(forKey: "b") == nil)
        #expect(lru.value(forKey: "a") != nil)
        #expect(lru.value(forKey: "c") != nil)
        // Costing more than the whole bound: not kept, nothing evicted for it.
        lru.insert(Self.entry(bytes: 3 * cost), valueBytes: 3 * cost, forKey: "d")
        #expect(lru.value(forKey: "d") == nil)
        #expect(lru.totalCost == 2 * cost)
        // Many hits keep the recency queue bounded and the entries intact.
        for _ in 0..<10_000 { _ = lru.value(forKey: "a") }
        #expect(lru.value(forKey: "c") != nil)
        #expect(lru.totalCost == 2 * cost)
        #expect(lru.recencyQueueLength <= 2 * lru.count + 65)
    }

    @Test("long keys count: 4,000 distinct 8 KiB keys over 72-byte answers stay within 1 MiB, and the queue does not grow")
    func longKeysCount() {
        // Given the load: a 1 MiB tier, tiny answers, 8 KiB source URLs
        var lru = BoundedLRU<ResultCache.Entry>(limit: 1 << 20, maxCount: 65_536)
        let entry = Self.entry(bytes: 72)
        let padding = String(repeating: "a", count: 8192)
        // When 4,000 distinct keys are inserted (insert only: each evicts one)
        for index in 0..<4_000 {
            lru.insert(entry, valueBytes: 72, forKey: "imgproxy1|http://origin/p.png?\(index)&pad=\(padding)")
        }
        // Then what they cost stays within the bound, keys included (the old
        // tier counted 72 bytes each: all 4,000 stayed, 32 MiB of keys)
        #expect(lru.totalCost <= 1 << 20)
        #expect(lru.count <= (1 << 20) / 8192)
        #expect(lru.count >= (1 << 20) / (8192 + 200 + 72 + BoundedLRU<ResultCache.Entry>.entryOverhead))
        // And the recency queue's popped front is dropped, not kept (with its keys)
        #expect(lru.recencyQueueLength <= 2 * lru.count + 65)
    }

    @Test("the entry cap holds whatever the bytes")
    func entryCap() {
        var lru = BoundedLRU<Int>(limit: 1 << 30, maxCount: 10)
        for index in 0..<1_000 { lru.insert(index, valueBytes: 8, forKey: "k\(index)") }
        #expect(lru.count == 10)
        #expect(lru.value(forKey: "k999") == 999)
        #expect(lru.value(forKey: "k989") == nil)
        #expect(lru.recencyQueueLength <= 2 * lru.count + 65)
        var none = BoundedLRU<Int>(limit: 1 << 30, maxCount: 0)
        none.insert(1, valueBytes: 8, forKey: "k")
        #expect(none.count == 0)
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
        let written = writer.store(body, format: .png, freshness: Self.fresh, forKey: "k")
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
            // The format and tag of an older server, without a freshness.
            (body, Data("png \(written.entityTag.value)".utf8)),
        ] {
            try await disk.setData(Data(data), forKey: "k", extendedData: extendedData)
            #expect(await reader.entry(forKey: "k") == nil)
        }
        // A value past its freshness is a miss too.
        try await disk.setData(body, forKey: "k", extendedData: stored.extendedData)
        #expect(await reader.entry(forKey: "k") != nil)
        #expect(await reader.entry(forKey: "k", now: Date().addingTimeInterval(3601)) == nil)
        await store.shutdown()
    }
}
