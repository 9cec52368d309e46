import Foundation
import LoopbackServer
import Testing
import Synchronization
import AWILocking
@testable import AsyncWebImage

/// Decompression bombs in flight at once: each transfer's buffered body
/// stays within the byte limit plus a small constant.
@Suite("Bomb memory", .timeLimit(.minutes(1)))
struct BombMemoryTests {
    @Test("16 concurrent gzip bombs with a 32 MiB limit raise the peak RSS by at most 16 × (32 + 8) MiB")
    func concurrentBombs() async throws {
        // Given 16 distinct URLs each answering 1 GiB of zeros as a 6.8 MB gzip
        // stream, and a loader running all 16 at once with a 32 MiB limit
        let server = try startedServer()
        defer { server.stop() }
        let bomb = GzipBomb.make(copyGroups: (1 << 30) / (258 * 8) + 1)
        for index in 0..<16 { server.route("/bomb\(index)", .init(headers: [("Content-Encoding", "gzip")], body: bomb)) }
        let limit: Int64 = 32 << 20
        var loaderConfiguration = CurlDataLoader.Configuration()
        loaderConfiguration.maxConcurrentDownloads = 16
        loaderConfiguration.maxResponseBytes = limit
        let coalescer = DownloadCoalescer(loader: CurlDataLoader(configuration: loaderConfiguration))
        let sampler = RSSSampler()
        let baseline = RSSSampler.current()

        // When all 16 are downloaded at once, each subscriber taking the
        // chunks as they come (as the pipeline's progressive path does)
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for index in 0..<16 {
                group.addTask {
                    do {
                        for try await _ in coalescer.download(DataRequest(url: server.url("/bomb\(index)"))) {}
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let peak = sampler.stop()

        // Then every one stops at the limit, and the process grew by less than
        // the limit plus 8 MiB per transfer (before: curl's paused writes and
        // the doubling buffer held ~80 MiB each)
        #expect(errors.count == 16)
        for error in errors {
            #expect(error as? ImageError == .tooLarge(.bytes, limit: limit, actual: nil), "\(String(describing: error))")
        }
        let grown = peak - baseline
        print("16 concurrent gzip bombs, 32 MiB limit: peak RSS +\(grown >> 20) MiB (baseline \(baseline >> 20) MiB)")
        // (AddressSanitizer adds its shadow and quarantine on top)
        #expect(grown < 16 * (Int(limit) + (8 << 20)) * (testTimeScale > 1 ? 2 : 1), "peak RSS grew by \(grown >> 20) MiB")
    }
}

/// Samples this process's resident set size every millisecond on a thread
/// of its own until stopped, keeping the largest value.
final class RSSSampler: Sendable {
    private struct State {
        var running = true
        var peak = 0
    }
    private let state = Lock(State())
    private let done = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                let now = Self.current()
                state.withLock { $0.peak = max($0.peak, now) }
                usleep(1_000)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops sampling; the largest RSS seen (bytes).
    func stop() -> Int {
        state.withLock { $0.running = false }
        done.wait()
        return max(state.withLock { $0.peak }, Self.current())
    }

    /// The resident set size now (bytes), from /proc/self/statm.
    static func current() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
