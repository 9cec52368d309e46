import Foundation
import Testing
@testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

/// Files at an entry's name that are not regular files (issue 12, finding 7):
/// a FIFO there used to block the read in `open(2)` until a writer came,
/// holding the store's I/O thread (or a cooperative-pool thread on the
/// resident path) and the process's shutdown with it.
@Suite("DiskStore special files", .timeLimit(.minutes(1)))
struct DiskStoreSpecialFileTests {
    /// How long a read may take before the test calls it blocked.
    static let deadline: Duration = .seconds(3)

    private func store(_ directory: URL) -> DiskStore {
        DiskStore(directory: directory, configuration: .init(cleansUpAtStart: false, cleanupInterval: nil))
    }

    /// Runs `read` while a watchdog stands by: if it has not returned by
    /// ``deadline``, the watchdog opens `fifo` for writing, which releases a
    /// reader blocked in `open(2)`, so a regression fails the test instead of
    /// hanging it. Returns the read's result and how long it took.
    private func watched<T: Sendable>(fifo: String, _ read: @escaping @Sendable () async throws -> T) async throws -> (T, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let watchdog = Task {
            try await Task.sleep(for: Self.deadline)
            // Opening the write end unblocks a reader stuck in open(); keep it
            // open briefly so the reader sees a writer, then end of file.
            let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                try? await Task.sleep(for: .milliseconds(200))
                close(fd)
            }
        }
        defer { watchdog.cancel() }
        let result = try await read()
        return (result, clock.now - start)
    }

    @Test("a FIFO at an entry's name is a miss at once, on every read, and is removed", arguments: ["data", "dataWithExtendedData", "extendedData"])
    func fifoEntry(read: String) async throws {
        // Given a FIFO at the hashed path of key "k"
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(Data("seed".utf8), forKey: "other", extendedData: nil) // the directory exists
        let path = store.path(forKey: "k")
        #expect(mkfifo(path, 0o600) == 0)
        // When it is read
        let (result, elapsed) = try await watched(fifo: path) { () async throws -> Data? in
            switch read {
            case "data": try await store.data(forKey: "k")
            case "dataWithExtendedData": try await store.dataWithExtendedData(forKey: "k")?.data
            default: try await store.extendedData(forKey: "k")
            }
        }
        // Then a miss, well before the deadline, and the FIFO is gone
        #expect(result == nil)
        #expect(elapsed < Self.deadline, "the read blocked for \(elapsed)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(await store.statistics.damagedEntries == 1)
        // and the key can be stored and read again
        try await store.setData(Data("good".utf8), forKey: "k", extendedData: nil)
        #expect(try await store.data(forKey: "k") == Data("good".utf8))
    }

    @Test("a FIFO at an entry's sidecar name is ignored at once")
    func fifoSidecar() async throws {
        let root = TemporaryDirectory()
        let store = DiskStore(
            directory: root.url,
            configuration: .init(cleansUpAtStart: false, cleanupInterval: nil, extendedDataStorage: .sidecarFile)
        )
        try await store.setData(Data("body".utf8), forKey: "k", extendedData: nil)
        let sidecar = store.path(forKey: "k") + DiskStore.sidecarSuffix
        #expect(mkfifo(sidecar, 0o600) == 0)
        let (entry, elapsed) = try await watched(fifo: sidecar) { try await store.dataWithExtendedData(forKey: "k") }
        #expect(entry?.data == Data("body".utf8))
        #expect(entry?.extendedData == nil)
        #expect(elapsed < Self.deadline, "the read blocked for \(elapsed)")
    }

    @Test("a character device at an entry's name is refused without reading it")
    func deviceEntry() async throws {
        // Given a symbolic link from the entry's name to /dev/zero (endless bytes)
        let root = TemporaryDirectory()
        let store = store(root.url)
        try await store.setData(Data("seed".utf8), forKey: "other", extendedData: nil)
        let path = store.path(forKey: "k")
        #expect(symlink("/dev/zero", path) == 0)
        // When it is read, then it is a miss each time (the link is left:
        // only a file the store read is removed, and it read /dev/zero)
        #expect(try await store.data(forKey: "k") == nil)
        #expect(try await store.dataWithExtendedData(forKey: "k") == nil)
        #expect(try await store.extendedData(forKey: "k") == nil)
        #expect(await store.statistics.hits == 0)
    }

    @Test("releasing a store while a FIFO sits at a name being read does not block")
    func shutdownWithFIFO() async throws {
        let root = TemporaryDirectory()
        var store: DiskStore? = store(root.url)
        try await store?.setData(Data("seed".utf8), forKey: "other", extendedData: nil)
        let path = try #require(store?.path(forKey: "k"))
        #expect(mkfifo(path, 0o600) == 0)
        let (_, elapsed) = try await watched(fifo: path) { [store] in try await store?.data(forKey: "k") }
        store = nil
        #expect(elapsed < Self.deadline, "the read blocked for \(elapsed)")
    }
}
