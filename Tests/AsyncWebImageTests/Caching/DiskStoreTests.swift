import Foundation
import Testing
@testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

@Suite("DiskStore", .timeLimit(.minutes(2)))
struct DiskStoreTests {
    /// A store with no background cleanup, so every pass is the test's own.
    private func store(
        _ directory: URL,
        clock: ManualDate? = nil,
        maxAge: Duration? = .seconds(7 * 86_400),
        by expirationDate: DiskStore.Configuration.ExpirationDate = .accessDate,
        maxSize: Int? = nil,
        extendedData: DiskStore.Configuration.ExtendedDataStorage = .automatic
    ) -> DiskStore {
        DiskStore(
            directory: directory,
            configuration: .init(
                maxAge: maxAge, expirationDate: expirationDate, maxSize: maxSize,
                cleansUpAtStart: false, cleanupInterval: nil, extendedDataStorage: extendedData),
            now: clock?.provider, sleep: nil)
    }

    private func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    private func ourFiles(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { DiskStoreDirectoryScan.kind(of: $0) != nil }.sorted()
    }

    // MARK: Files and names

    @Test("round trip; 0700 directory and parents created on first write; 0600 files")
    func roundTripAndModes() async throws {
        // Given a store whose directory (and its parent) do not exist yet
        let root = TemporaryDirectory()
        let directory = root.appending("a/b")
        let store = store(directory)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        // When an entry is written and read back
        let data = bytes(10_000)
        try await store.setData(data, forKey: "https://example.com/images/cat.JPG?size=2")
        let read = try await store.data(forKey: "https://example.com/images/cat.JPG?size=2")
        // Then the data matches, the file is <sha256>.jpg, 0600, in a 0700 directory
        #expect(read == data)
        let path = store.path(forKey: "https://example.com/images/cat.JPG?size=2")
        #expect(path == directory.path + "/" + SHA256.hexDigest("https://example.com/images/cat.JPG?size=2") + ".jpg")
        #expect(FileFlags.mode(path) == 0o600)
        #expect(FileFlags.mode(directory.path) == 0o700)
        #expect(FileFlags.mode(root.appending("a").path) == 0o700)
        // data plus the 24-byte trailer
        #expect(try await store.totalSize == 10_000 + DiskEntryTrailer.size)
        #expect(try await store.count == 1)
        #expect(await store.contains("https://example.com/images/cat.JPG?size=2"))
        #expect(try await store.data(forKey: "other") == nil)
        let stats = await store.statistics
        #expect(stats.hits == 1 && stats.misses == 1 && stats.writes == 1)
    }

    @Test("empty data round-trips")
    func emptyData() async throws {
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(Data(), forKey: "empty")
        #expect(try await store.data(forKey: "empty") == Data())
    }

    @Test("file name extensions: short alphanumeric URL path extensions only", arguments: [
        ("https://example.com/a/b.JPG?x=1#y", "jpg"),
        ("https://example.com/a.tar.gz", "gz"),
        ("https://example.com", nil),
        ("https://example.com/", nil),
        ("https://example.com/a.verylongext", nil),
        ("https://example.com/a.p-g", nil),
        ("https://example.com/dir.d/file", nil),
        ("plain-key.webp", "webp"),
        ("../../etc/passwd", nil),
    ] as [(String, String?)])
    func extensions(key: String, expected: String?) {
        #expect(DiskStore.pathExtension(of: key) == expected)
    }

    @Test("keys with ../ or / stay inside the directory")
    func traversal() async throws {
        // Given a store in a subdirectory of a scratch directory
        let root = TemporaryDirectory()
        let directory = root.appending("store")
        let store = store(directory)
        let keys = ["../../escape", "../escape.png", "/etc/passwd", "a/../../b", "..", ".", ""]
        // When entries are written under hostile keys
        for (index, key) in keys.enumerated() { try await store.setData(bytes(10, seed: UInt8(index)), forKey: key) }
        // Then every file is directly inside the store's directory, and nothing was created beside it
        for (index, key) in keys.enumerated() {
            let path = store.path(forKey: key)
            #expect((path as NSString).deletingLastPathComponent == directory.path)
            #expect(try await store.data(forKey: key) == bytes(10, seed: UInt8(index)))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["store"])
        #expect(ourFiles(directory.path).count == keys.count)
    }

    // MARK: Extended data

    @Test("extended data round trip in an extended attribute, and its removal")
    func extendedDataAttribute() async throws {
        let root = TemporaryDirectory()
        let store = store(root.url)
        let etag = Data("ETag: \"abc\"\nLast-Modified: Wed, 21 Oct 2015 07:28:00 GMT".utf8)
        try await store.setData(bytes(100), forKey: "k", extendedData: etag)
        #expect(try await store.extendedData(forKey: "k") == etag)
        let both = try await store.dataWithExtendedData(forKey: "k")
        #expect(both?.data == bytes(100) && both?.extendedData == etag)
        // ext4/tmpfs take user xattrs: no sidecar file
        #expect(ourFiles(root.path).count == 1)
        // Replacing the data without extended data drops it
        try await store.setData(bytes(50), forKey: "k", extendedData: nil)
        #expect(try await store.extendedData(forKey: "k") == nil)
        // and setExtendedData attaches new metadata to the existing entry
        #expect(try await store.setExtendedData(Data("v2".utf8), forKey: "k"))
        #expect(try await store.extendedData(forKey: "k") == Data("v2".utf8))
        #expect(try await store.data(forKey: "k") == bytes(50))
        #expect(try await !store.setExtendedData(Data("x".utf8), forKey: "absent"))
    }

    @Test("extended data falls back to a 0600 sidecar file, removed with the entry")
    func extendedDataSidecar() async throws {
        // Given a store forced to use sidecar files
        let root = TemporaryDirectory()
        let store = store(root.url, extendedData: .sidecarFile)
        let meta = Data("etag-1".utf8)
        // When an entry with extended data is written
        try await store.setData(bytes(100), forKey: "k", extendedData: meta)
        // Then it round-trips through a sidecar next to the entry
        let sidecar = store.path(forKey: "k") + DiskStore.sidecarSuffix
        #expect(FileManager.default.fileExists(atPath: sidecar))
        #expect(FileFlags.mode(sidecar) == 0o600)
        #expect(try await store.extendedData(forKey: "k") == meta)
        #expect(try await store.dataWithExtendedData(forKey: "k")?.extendedData == meta)
        // and sizes count the sidecar (4-byte magic, 8-byte generation, payload)
        #expect(try await store.totalSize == 100 + DiskEntryTrailer.size + 12 + meta.count)
        // When the entry is removed, so is the sidecar
        try await store.removeData(forKey: "k")
        #expect(ourFiles(root.path).isEmpty)
    }

    @Test("a sidecar left from an older write of the key is not taken for the new entry's")
    func staleSidecar() async throws {
        // Given an entry whose sidecar is saved aside, then the entry rewritten with other metadata
        let root = TemporaryDirectory()
        let store = store(root.url, extendedData: .sidecarFile)
        try await store.setData(bytes(10), forKey: "k", extendedData: Data("old".utf8))
        let sidecar = store.path(forKey: "k") + DiskStore.sidecarSuffix
        let saved = try Data(contentsOf: URL(fileURLWithPath: sidecar))
        try await store.setData(bytes(20), forKey: "k", extendedData: Data("new".utf8))
        // When the old sidecar comes back (a crash between the two renames of another writer)
        try saved.write(to: URL(fileURLWithPath: sidecar))
        // Then it is ignored: no metadata rather than the wrong metadata
        #expect(try await store.extendedData(forKey: "k") == nil)
        #expect(try await store.data(forKey: "k") == bytes(20))
    }

    // MARK: Damage

    @Test("a truncated, foreign or empty file is removed and counted as a miss", arguments: ["truncated", "foreign", "empty", "trailerOnly"])
    func damagedEntry(kind: String) async throws {
        // Given a good entry whose file is then damaged from outside
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(bytes(5000), forKey: "k", extendedData: Data("meta".utf8))
        let path = store.path(forKey: "k")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        switch kind {
        case "truncated": try handle.truncate(atOffset: 2500)
        case "foreign": try handle.truncate(atOffset: 0); try handle.write(contentsOf: bytes(5000 + DiskEntryTrailer.size, seed: 9))
        case "empty": try handle.truncate(atOffset: 0)
        default: try handle.truncate(atOffset: 4990) // cuts into the trailer
        }
        try handle.close()
        // When it is read
        let read = try await store.data(forKey: "k")
        // Then it is a miss, counted as damaged, and the file is gone
        #expect(read == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        let stats = await store.statistics
        #expect(stats.misses == 1 && stats.damagedEntries == 1 && stats.hits == 0)
        // and the key can be stored again
        try await store.setData(bytes(10), forKey: "k")
        #expect(try await store.data(forKey: "k") == bytes(10))
    }

    @Test(
        "an entry in the page cache is read on the caller's thread; one due for an access-time renewal, or damaged, goes to the I/O thread",
        .enabled(if: FileIO.supportsCachedOpen, "the kernel has no openat2 RESOLVE_CACHED (before Linux 5.12)")
    )
    func residentReads() async throws {
        let root = TemporaryDirectory()
        let clock = ManualDate()
        let store = store(root.url, clock: clock, by: .accessDate)
        try await store.setData(bytes(70_000), forKey: "hot")
        // Just written, so in the page cache: served without the actor.
        #expect(try await store.data(forKey: "hot") == bytes(70_000))
        #expect(await store.statistics.residentHits == 1)
        // A miss is a miss on either path (the kernel may not have the
        // absent name cached).
        #expect(try await store.data(forKey: "absent") == nil)
        var stats = await store.statistics
        #expect(stats.hits == 1 && stats.misses == 1)

        // Two minutes on, the access time is due: the actor reads and renews it.
        clock.advance(by: 120)
        #expect(try await store.data(forKey: "hot") == bytes(70_000))
        #expect(await store.statistics.residentHits == 1)
        var info = stat()
        #expect(lstat(store.path(forKey: "hot"), &info) == 0)
        #expect(abs(Double(info.st_atim.tv_sec) - clock.provider().timeIntervalSince1970) < 1)
        // Renewed, so the next read is resident again.
        #expect(try await store.data(forKey: "hot") == bytes(70_000))
        #expect(await store.statistics.residentHits == 2)

        // A damaged entry is left to the actor, which removes it.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store.path(forKey: "hot")))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        #expect(try await store.data(forKey: "hot") == nil)
        #expect(!FileManager.default.fileExists(atPath: store.path(forKey: "hot")))
        stats = await store.statistics
        #expect(stats.hits == 3 && stats.damagedEntries == 1 && stats.misses == 2)
        #expect(await store.statistics.residentHits == 2)
    }

    // MARK: Broken directories

    @Test("a read-only directory gives .diskIO errors on write and remove; reads still work")
    func readOnlyDirectory() async throws {
        // Given an entry, then the directory made read-only
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(bytes(100), forKey: "kept")
        try FileFlags.makeReadOnly(root.path)
        defer { try? FileFlags.makeWritable(root.path) }
        // When writing and removing
        // Then typed errors, not crashes, and the old entry is intact
        do {
            try await store.setData(bytes(10), forKey: "new")
            Issue.record("write to a read-only directory succeeded")
        } catch let ImageError.diskIO(path, code, _) {
            #expect([EACCES, EPERM, EROFS].contains(code))
            #expect(path.hasPrefix(root.path))
        }
        await #expect(throws: ImageError.self) { try await store.removeData(forKey: "kept") }
        await #expect(throws: ImageError.self) { try await store.setData(bytes(10), forKey: "kept") }
        #expect(try await store.data(forKey: "kept") == bytes(100))
        #expect(await store.statistics.failedWrites == 2)
        #expect(ourFiles(root.path).count == 1)
    }

    @Test("a vanished directory reads as empty and is recreated by the next write")
    func vanishedDirectory() async throws {
        // Given a store with entries whose directory is then deleted
        let root = TemporaryDirectory()
        let directory = root.appending("cache")
        let store = store(directory)
        try await store.setData(bytes(100), forKey: "a")
        try FileManager.default.removeItem(at: directory)
        // When it is read, measured, cleaned
        // Then misses and zeros, no errors
        #expect(try await store.data(forKey: "a") == nil)
        #expect(try await store.extendedData(forKey: "a") == nil)
        #expect(await !store.contains("a"))
        #expect(try await store.totalSize == 0)
        #expect(try await store.cleanup().remainingCount == 0)
        try await store.removeData(forKey: "a")
        // And when written, the directory comes back with mode 0700
        try await store.setData(bytes(7), forKey: "b")
        #expect(try await store.data(forKey: "b") == bytes(7))
        #expect(FileFlags.mode(directory.path) == 0o700)
    }

    @Test("a directory path that is a file gives .diskIO, not a crash")
    func directoryIsAFile() async throws {
        let root = TemporaryDirectory()
        let file = root.appending("file")
        try Data("x".utf8).write(to: file)
        let store = store(file)
        await #expect(throws: ImageError.self) { try await store.setData(bytes(1), forKey: "k") }
        #expect(try await store.data(forKey: "k") == nil)
    }

    // MARK: Expiry and trimming

    @Test("expiry by modification date with an injected clock")
    func expiryByModification() async throws {
        // Given entries written at day 0, 3 and 6, with a read of the first at day 6
        let root = TemporaryDirectory()
        let clock = ManualDate()
        let store = store(root.url, clock: clock, by: .modificationDate)
        try await store.setData(bytes(10), forKey: "day0")
        clock.advance(by: 3 * 86_400)
        try await store.setData(bytes(10), forKey: "day3")
        clock.advance(by: 3 * 86_400)
        try await store.setData(bytes(10), forKey: "day6")
        _ = try await store.data(forKey: "day0")
        // When cleaning up at day 8 (maxAge 7 days)
        clock.advance(by: 2 * 86_400)
        let result = try await store.cleanup()
        // Then only day0 expired: reading does not renew a modification date
        #expect(result.expiredCount == 1 && result.trimmedCount == 0)
        #expect(result.removedBytes == 10 + DiskEntryTrailer.size)
        #expect(await !store.contains("day0"))
        #expect(await store.contains("day3"))
        #expect(await store.contains("day6"))
        #expect(result.remainingCount == 2 && result.remainingSize == 2 * (10 + DiskEntryTrailer.size))
    }

    @Test("expiry by access date: a read renews the entry")
    func expiryByAccess() async throws {
        // Given a at day 0, b at day 1, and a read of a at day 2
        let root = TemporaryDirectory()
        let clock = ManualDate()
        let store = store(root.url, clock: clock, by: .accessDate)
        try await store.setData(bytes(10), forKey: "a")
        clock.advance(by: 86_400)
        try await store.setData(bytes(10), forKey: "b")
        clock.advance(by: 86_400)
        #expect(try await store.data(forKey: "a") != nil)
        // When cleaning up at day 8.5
        clock.advance(by: 6.5 * 86_400)
        let result = try await store.cleanup()
        // Then b (7.5 days unread) expired and a (6.5 days) stayed
        #expect(result.expiredCount == 1)
        #expect(await store.contains("a"))
        #expect(await !store.contains("b"))
    }

    @Test("expiry with timestamps set on the files (real clock)")
    func expiryWithFileTimes() async throws {
        // Given three entries, one of them stamped nine days ago with utimensat
        let root = TemporaryDirectory()
        let store = store(root.url, by: .modificationDate)
        for key in ["old", "new1", "new2"] { try await store.setData(bytes(10), forKey: key) }
        let nineDaysAgo = Date().timeIntervalSince1970 - 9 * 86_400
        FileFlags.setTimes(store.path(forKey: "old"), access: nineDaysAgo, modification: nineDaysAgo)
        // When cleaning up
        let result = try await store.cleanup()
        // Then exactly that one is gone
        #expect(result.expiredCount == 1)
        #expect(await !store.contains("old"))
        #expect(try await store.count == 2)
    }

    @Test("over maxSize, the oldest go first until at most half remain; exact survivors")
    func trimToHalf() async throws {
        // Given six 200-byte entries (data + trailer) written a day apart, e0 read last
        let root = TemporaryDirectory()
        let clock = ManualDate()
        let writer = store(root.url, clock: clock, maxSize: nil)
        for index in 0..<6 {
            try await writer.setData(bytes(200 - DiskEntryTrailer.size, seed: UInt8(index)), forKey: "e\(index)")
            clock.advance(by: 3600)
        }
        #expect(try await writer.data(forKey: "e0") != nil)
        // When a store limited to 1,000 bytes cleans up (1,200 bytes present)
        let limited = store(root.url, clock: clock, maxSize: 1000)
        let result = try await limited.cleanup()
        // Then e1...e4 are removed (1200 → 400 ≤ 500) and e0 (recently read) and e5 survive
        #expect(result.trimmedCount == 4 && result.expiredCount == 0)
        #expect(result.removedBytes == 800 && result.remainingSize == 400 && result.remainingCount == 2)
        for index in 0..<6 {
            #expect(await limited.contains("e\(index)") == [0, 5].contains(index))
        }
        #expect(await limited.statistics.trimmedEntries == 4)
    }

    @Test("leftover temporary files older than an hour are removed; fresh ones and foreign files are kept")
    func strayFiles() async throws {
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(bytes(10), forKey: "k")
        let stale = root.path + "/" + DiskStore.temporaryPrefix + "dead"
        let fresh = root.path + "/" + DiskStore.temporaryPrefix + "busy"
        let foreign = root.path + "/README"
        for path in [stale, fresh, foreign] { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        let twoHoursAgo = Date().timeIntervalSince1970 - 7200
        FileFlags.setTimes(stale, access: twoHoursAgo, modification: twoHoursAgo)
        let result = try await store.cleanup()
        #expect(result.strayFilesRemoved == 1)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
        try await store.removeAll()
        #expect(FileManager.default.fileExists(atPath: foreign))
        #expect(try await store.count == 0)
    }

    // MARK: Other processes

    /// The helper executable, built beside this test binary.
    private func helper() throws -> URL {
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let helper = binaries.appendingPathComponent("awi-cache-stress")
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        return helper
    }

    @Test("a full device (file size limit in a child process) fails writes with .diskIO and keeps the cached entry whole")
    func fullDevice() async throws {
        // Given a child process whose file size limit is 4 KiB
        let root = TemporaryDirectory()
        let process = Process()
        let output = Pipe()
        process.executableURL = try helper()
        process.arguments = ["--full", root.path]
        process.standardOutput = output
        // When it writes past the limit
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Then it reports EFBIG errors, an intact older entry and no stray file
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.hasPrefix("ok"))
    }

    @Test("two processes writing, reading and removing the same keys never see a partial or foreign entry")
    func twoProcesses() async throws {
        // Given the helper executable built beside this test binary
        let helper = try helper()
        let root = TemporaryDirectory()
        // When two processes hammer 6 keys of one directory, 200 iterations each
        var processes: [(Process, Pipe)] = []
        for writer in 1...2 {
            let process = Process()
            let output = Pipe()
            process.executableURL = helper
            process.arguments = [root.path, "\(writer)", "200", "6"]
            process.standardOutput = output
            try process.run()
            processes.append((process, output))
        }
        // (and this process reads the same keys meanwhile, bounded in count)
        let store = store(root.url)
        var localHits = 0
        for round in 0..<300 {
            let key = "https://example.com/\(round % 6).png"
            if let data = try await store.data(forKey: key) {
                localHits += 1
                #expect(data.count > 8)
            }
            if !processes.contains(where: { $0.0.isRunning }) { break }
        }
        // Then both exit cleanly with no violation, and they did read entries
        for (process, output) in processes {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(text)")
            #expect(text.contains("violations 0 damaged 0"))
            #expect(!text.contains("hits 0 "))
        }
        // and no temporary file or damaged entry is left behind
        let names = ourFiles(root.path)
        #expect(!names.contains { $0.hasPrefix(DiskStore.temporaryPrefix) })
        #expect(await store.statistics.damagedEntries == 0)
        _ = localHits
    }

    // MARK: Background cleanup

    @Test("cleanup runs at start and then once per interval")
    func periodicCleanup() async throws {
        // Given an expired entry on disk and a store that cleans at start and periodically
        let root = TemporaryDirectory()
        let clock = ManualDate()
        try await store(root.url, clock: clock).setData(bytes(10), forKey: "old")
        clock.advance(by: 8 * 86_400)
        let ticker = Ticker()
        let store = DiskStore(
            directory: root.url,
            configuration: .init(cleansUpAtStart: true, cleanupInterval: .seconds(60)),
            now: clock.provider, sleep: { _ in await ticker.sleep() })
        // Then the start-up pass removes it, and the loop then sleeps
        #expect(await eventually { await store.statistics.cleanups == 1 })
        #expect(await eventually { await ticker.sleepers == 1 })
        #expect(await !store.contains("old"))
        // When a new entry expires and one interval passes
        try await store.setData(bytes(10), forKey: "next")
        clock.advance(by: 8 * 86_400)
        await ticker.tick()
        // Then the periodic pass removes it
        #expect(await eventually { await store.statistics.cleanups == 2 })
        #expect(await !store.contains("next"))
        #expect(await store.statistics.expiredEntries == 2)
    }

    @Test("writes that take the store over maxSize start a trim without waiting for the period")
    func sizeTriggeredCleanup() async throws {
        let root = TemporaryDirectory()
        let store = DiskStore(
            directory: root.url,
            configuration: .init(maxSize: 1000, cleansUpAtStart: false, cleanupInterval: nil))
        for index in 0..<6 { try await store.setData(bytes(176, seed: UInt8(index)), forKey: "e\(index)") }
        #expect(await eventually { await store.statistics.cleanups >= 1 })
        #expect(try await store.totalSize <= 1000)
        #expect(await store.statistics.trimmedEntries >= 1)
    }

    @Test("a released store stops its maintenance and its thread")
    func releasedStore() async throws {
        let root = TemporaryDirectory()
        weak var weakStore: DiskStore?
        do {
            let store = DiskStore(directory: root.url, configuration: .init(cleanupInterval: .seconds(3600)))
            weakStore = store
            try await store.setData(bytes(3), forKey: "k")
        }
        #expect(await eventually { weakStore == nil })
    }
}
