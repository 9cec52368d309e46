import Foundation
import LoopbackServer
import Synchronization
import Testing
@testable import AsyncWebImage
#if canImport(Glibc)
import Glibc
import AsyncWebImageAllFormats
#endif

/// Many requests through one `ImageLoader` with a fifth of them cancelled at
/// random stages. 1,500 requests over 100 URLs by default; the issue's
/// 10,000 over 500 with `AWI_SOAK_FULL=1` (`scripts/soak`).
@Suite("Soak", .timeLimit(.minutes(5)))
struct SoakTests {
    private enum Stage: CaseIterable { case beforeStart, duringDownload, duringDecode }

    private enum Outcome: Sendable {
        case loaded(Bool)     // pixel-correct?
        case cancelled
        case failed(String)
    }

    @Test("requests over many URLs, 20% cancelled before start, mid-download or mid-decode: pixels right, nothing left, memory back")
    func soak() async throws {
        let full = ProcessInfo.processInfo.environment["AWI_SOAK_FULL"] == "1"
        let requestCount = full ? 10_000 : 1_500
        let urlCount = full ? 500 : 100
        let workers = 24

        // Given URLs of noise PNGs of 16...63 px, trickled in 3 pieces so
        // downloads are in flight long enough to be cancelled there, and the
        // direct decode of each
        let server = LoopbackServer(maxConnections: 512)
        try server.start()
        defer { server.stop() }
        var decoded: [Image] = []
        for index in 0..<urlCount {
            let png = try noisePNG(side: 16 + index % 48, seed: UInt64(index + 1))
            decoded.append(try ImageCoderRegistry.allFormats.decode(png))
            server.route("/soak/\(index).png", trickled(png, pieces: 3, every: .milliseconds(1), contentType: "image/png"))
        }
        let expected = decoded
        let urls = (0..<urlCount).map { server.url("/soak/\($0).png") }
        // and one loader with a real disk cache and a memory cache of 64 images
        // (so memory hits, disk hits and downloads all happen)
        let root = TemporaryDirectory()
        let memory = MemoryCache(configuration: .init(countLimit: 64))
        let disk = DiskStore(directory: root.appending("cache"))
        let dataLoader = CurlDataLoader(configuration: { var c = CurlDataLoader.Configuration(); c.maxConcurrentDownloads = 12; return c }())
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: memory, disk: disk))
        configuration.dataLoader = dataLoader
        let loader = ImageLoader(configuration: configuration)
        let rssBefore = Self.rss()
        let peak = SharedCounter(rssBefore)
        let sampler = Task {
            while !Task.isCancelled {
                let now = Self.rss()
                _ = peak.value.max(now, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }

        // When workers issue the requests: 20% cancelled (a third at each stage),
        // 30% of the rest with .fromLoaderOnly so downloads keep happening
        let start = ContinuousClock.now
        let next = SharedCounter(0)
        let outcomes = await withTaskGroup(of: [(Stage?, Outcome)].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var random = SystemRandomNumberGenerator()
                    var mine: [(Stage?, Outcome)] = []
                    _ = worker
                    while true {
                        let request = next.value.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard request < requestCount else { break }
                        let index = Int.random(in: 0..<urlCount, using: &random)
                        let url = urls[index]
                        let roll = Int.random(in: 0..<100, using: &random)
                        if roll < 20 {
                            let stage = Stage.allCases[roll % 3]
                            mine.append((stage, await Self.cancelled(loader, url, at: stage, expected: expected[index])))
                        } else {
                            mine.append((nil, await Self.load(loader, url, options: roll < 44 ? .fromLoaderOnly : [], expected: expected[index])))
                        }
                    }
                    return mine
                }
            }
            var all: [(Stage?, Outcome)] = []
            for await part in group { all += part }
            return all
        }
        let wall = ContinuousClock.now - start

        // Then every request that was not cancelled got the right pixels, and
        // no error other than cancellation happened
        var loaded = 0, wrong = 0, cancelled = 0, cancelAttempts = 0, finishedBeforeCancel = 0
        var failures: [String] = []
        var cancelledAt: [Stage: Int] = [:]
        for (stage, outcome) in outcomes {
            if stage != nil { cancelAttempts += 1 }
            switch outcome {
            case .loaded(let correct):
                loaded += 1
                if !correct { wrong += 1 }
                if stage != nil { finishedBeforeCancel += 1 }
            case .cancelled:
                cancelled += 1
                if let stage { cancelledAt[stage, default: 0] += 1 }
            case .failed(let text): failures.append(text)
            }
        }
        #expect(outcomes.count == requestCount)
        #expect(wrong == 0)
        #expect(failures.isEmpty, "\(Set(failures).prefix(3))")
        // (how many cancels land before the load finishes depends on timing: under
        // ThreadSanitizer about half, normally two thirds; a quarter is the floor)
        #expect(cancelled * 4 >= cancelAttempts)
        // and nothing is left in flight: transfers, image tasks, curl handles, server requests
        let drained = await pipelineEventually(attempts: 5_000) {
            await loader.downloads.transferCount == 0 && loader.tasks.count == 0
                && dataLoader.outstandingTransfers == 0 && dataLoader.liveEasyHandles == 0
                && (0..<urlCount).allSatisfy { server.statistics("/soak/\($0).png").inFlight == 0 }
        }
        let transfersLeft = await loader.downloads.transferCount
        #expect(drained, "transfers \(transfersLeft), tasks \(loader.tasks.count), curl \(dataLoader.outstandingTransfers)/\(dataLoader.liveEasyHandles)")
        sampler.cancel()
        // and memory returns close to where it started once the memory cache is emptied
        let rssAfterSoak = Self.rss()
        await memory.removeAll()
        let rssAfter = Self.rss()
        let requests = (0..<urlCount).reduce(0) { $0 + server.statistics("/soak/\($1).png").requests }
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        print("""
            soak: \(requestCount) requests over \(urlCount) URLs in \(wall): \(loaded) loaded (\(wrong) wrong), \
            \(cancelAttempts) cancel attempts (\(cancelled) cancelled: \(cancelledAt[.beforeStart] ?? 0) before start, \
            \(cancelledAt[.duringDownload] ?? 0) mid-download, \(cancelledAt[.duringDecode] ?? 0) mid-decode; \(finishedBeforeCancel) finished first), \
            \(failures.count) failures; \(requests) server requests; \
            RSS before \(mib(rssBefore)), peak \(mib(peak.value.load(ordering: .relaxed))), after \(mib(rssAfterSoak)), \
            after emptying the memory cache \(mib(rssAfter)); leftovers: \(transfersLeft) transfers, \
            \(loader.tasks.count) image tasks, \(dataLoader.outstandingTransfers) curl transfers, \(dataLoader.liveEasyHandles) curl handles
            """)
        // RSS is the whole process's: in the default run other suites run in the
        // same process at the same time, so only the full run (alone, through
        // scripts/soak) can attribute it to the soak and holds it to a bound.
        if full {
            #expect(rssAfter - rssBefore < 64 << 20, "RSS grew from \(mib(rssBefore)) to \(mib(rssAfter))")
        }
    }

    /// A plain load, checked against the direct decode.
    private static func load(_ loader: ImageLoader, _ url: URL, options: ImageOptions, expected: Image) async -> Outcome {
        do {
            let response = try await loader.response(url, options: options)
            return .loaded(response.image.hasSamePixels(as: expected))
        } catch {
            return .failed("\(error)")
        }
    }

    /// A load cancelled at `stage`: before its task runs, at its first
    /// progress event, or when the last byte arrived (the decode is then
    /// under way). A load that finished first must still be right.
    private static func cancelled(_ loader: ImageLoader, _ url: URL, at stage: Stage, expected: Image) async -> Outcome {
        let task = Task { () -> Outcome in
            do {
                var final: ImageResponse?
                for try await event in loader.events(url, options: .fromLoaderOnly) {
                    switch event {
                    case .progress(let received, let total):
                        if stage == .duringDownload || (stage == .duringDecode && total == received) {
                            withUnsafeCurrentTask { $0?.cancel() }
                        }
                    case .finished(let response): final = response
                    case .preview: break
                    }
                }
                guard let final else { return .cancelled }
                return .loaded(final.image.hasSamePixels(as: expected))
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .failed("\(error)")
            }
        }
        if stage == .beforeStart { task.cancel() }
        return await task.value
    }

    /// Resident set size of this process (bytes), from /proc/self/statm.
    static func rss() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// An atomic integer that closures of several tasks can share.
private final class SharedCounter: Sendable {
    let value: Atomic<Int>
    init(_ initial: Int) { value = Atomic(initial) }
}
