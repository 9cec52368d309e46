import AWIBenchResults
import AsyncWebImage
import Foundation
import LoopbackServer

/// Many tasks loading, cancelling and abandoning downloads through one
/// `DownloadCoalescer` and `CurlDataLoader` for a bounded time, on shared
/// keys so cancellations hit transfers other subscribers still want. Then
/// the leftovers: transfers still in the coalescer's table, transfers and
/// curl handles the loader still has, requests the server still serves. All
/// must drain to zero, no completed body may be wrong, and no error other
/// than the cancellation the soak asked for may appear.
struct SoakScenario: Scenario {
    let name = "soak"
    let summary = "random cancellations through DownloadCoalescer/CurlDataLoader for a bounded time; leftovers must be 0"

    private static let workers = 48
    private static let paths = 40
    private static let bodySize = 96 * 1024

    private enum Outcome: Sendable {
        case completed(latency: Double)
        case cancelled
        case abandoned
        case wrongBody
        case unexpected(String)
    }

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let seconds = (context.options.quick ? 2.0 : 10.0) * context.options.durationScale
        let caseName = "\(Self.workers) tasks, \(Format.seconds(seconds))"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(caseName: caseName, seconds: seconds, context: context)
        }]
    }

    private func measure(caseName: String, seconds: Double, context: BenchmarkContext) async throws -> ResultRow {
        let server = try context.server.server()
        var random = SplitMix64(seed: 99)
        let body = Data((0..<Self.bodySize).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        // Trickled, so that transfers are in flight long enough to be
        // cancelled mid-body: 8 KiB every 2 ms (~25 ms per body).
        let paths = (0..<Self.paths).map { "/soak/\($0)" }
        for path in paths {
            server.route(path, LoopbackServer.Response(body: body, trickle: .init(bytesPerPiece: 8_192, interval: .milliseconds(2))))
        }
        let urls = paths.map { server.url($0) }
        let loader = CurlDataLoader()
        let coalescer = DownloadCoalescer(loader: loader)
        let startRSS = ResourceUsage.currentRSSBytes() ?? 0

        let start = ResourceUsage.now()
        let deadline = start.wall + seconds
        let outcomes = await withTaskGroup(of: [Outcome].self) { group in
            for worker in 0..<Self.workers {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(1_000 + worker))
                    var outcomes: [Outcome] = []
                    while ResourceUsage.wallSeconds() < deadline {
                        let url = urls[Int(random.next() % UInt64(urls.count))]
                        switch random.next() % 3 {
                        case 0: outcomes.append(await Self.complete(url, coalescer))
                        case 1: outcomes.append(await Self.cancel(url, coalescer, afterMicroseconds: Int(random.next() % 30_000)))
                        default: outcomes.append(await Self.abandon(url, coalescer))
                        }
                    }
                    return outcomes
                }
            }
            var all: [Outcome] = []
            for await part in group {
                all += part
                context.progress.update(fraction: min(1, (ResourceUsage.wallSeconds() - start.wall) / seconds))
            }
            return all
        }
        let used = ResourceUsage.now().since(start)

        // Drain: everything must go back to zero within 3 s.
        let drainStart = ResourceUsage.wallSeconds()
        var leftovers = await Self.leftovers(coalescer, loader, server, paths)
        while leftovers.total > 0, ResourceUsage.wallSeconds() - drainStart < 3 {
            try await Task.sleep(for: .milliseconds(20))
            leftovers = await Self.leftovers(coalescer, loader, server, paths)
        }
        let drainTime = ResourceUsage.wallSeconds() - drainStart

        var latencies: [Double] = []
        var cancelled = 0, abandoned = 0, wrong = 0
        var unexpected: [String] = []
        for outcome in outcomes {
            switch outcome {
            case .completed(let latency): latencies.append(latency)
            case .cancelled: cancelled += 1
            case .abandoned: abandoned += 1
            case .wrongBody: wrong += 1
            case .unexpected(let text): unexpected.append(text)
            }
        }
        let requests = paths.reduce(0) { $0 + server.statistics($1).requests }
        let disconnects = paths.reduce(0) { $0 + server.statistics($1).disconnects.count }
        let transfers = await coalescer.transfersStarted
        let endRSS = ResourceUsage.currentRSSBytes() ?? 0

        var row = ResultRow(scenario: name, caseName: caseName)
        row.throughput = Double(outcomes.count) / used.wall
        row.unit = "ops/s"
        let latency = Statistics(latencies)
        row.p50 = latency?.median
        row.p99 = latency?.p99
        row.cpuSeconds = used.processCPU / Double(max(outcomes.count, 1))
        row.iterations = outcomes.count
        row.target = "0 leftovers, 0 errors"
        row.passed = leftovers.total == 0 && wrong == 0 && unexpected.isEmpty
        row.note = "\(outcomes.count) downloads: \(latencies.count) completed, \(cancelled) cancelled, \(abandoned) abandoned after the first chunk; "
            + "\(transfers) transfers, \(requests) server requests, \(disconnects) early disconnects; "
            + "leftovers after \(Format.seconds(drainTime)): \(leftovers.description); "
            + "\(wrong) wrong bodies, \(unexpected.count) unexpected errors"
            + (unexpected.isEmpty ? "" : " (\(Set(unexpected).sorted().prefix(3).joined(separator: "; ")))")
            + "; RSS \(Format.bytes(startRSS)) → \(Format.bytes(endRSS)); p50/p99 = completed-download latency"
        return row
    }

    private struct Leftovers: Sendable {
        var coalescerTransfers = 0
        var loaderTransfers = 0
        var easyHandles = 0
        var serverInFlight = 0
        var total: Int { coalescerTransfers + loaderTransfers + easyHandles + serverInFlight }
        var description: String {
            "\(coalescerTransfers) coalescer transfers, \(loaderTransfers) loader transfers, \(easyHandles) curl handles, \(serverInFlight) server requests"
        }
    }

    private static func leftovers(_ coalescer: DownloadCoalescer, _ loader: CurlDataLoader, _ server: LoopbackServer, _ paths: [String]) async -> Leftovers {
        Leftovers(
            coalescerTransfers: await coalescer.transferCount,
            loaderTransfers: loader.outstandingTransfers,
            easyHandles: loader.liveEasyHandles,
            serverInFlight: paths.reduce(0) { $0 + server.statistics($1).inFlight }
        )
    }

    /// Loads to the end and checks the size.
    private static func complete(_ url: URL, _ coalescer: DownloadCoalescer) async -> Outcome {
        let start = ResourceUsage.wallSeconds()
        do {
            for try await event in coalescer.download(DataRequest(url: url)) {
                if case .completed(let data) = event {
                    return data.count == bodySize ? .completed(latency: ResourceUsage.wallSeconds() - start) : .wrongBody
                }
            }
            return .unexpected("ended without completion")
        } catch {
            return .unexpected("\(error)")
        }
    }

    /// Loads in a child task and cancels it after a random delay; finishing
    /// first is fine, any error but cancellation is not.
    private static func cancel(_ url: URL, _ coalescer: DownloadCoalescer, afterMicroseconds delay: Int) async -> Outcome {
        let task = Task { () async -> Outcome in
            do {
                for try await event in coalescer.download(DataRequest(url: url)) {
                    if case .completed(let data) = event { return data.count == bodySize ? .completed(latency: 0) : .wrongBody }
                }
                return .cancelled
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .unexpected("\(error)")
            }
        }
        try? await Task.sleep(for: .microseconds(delay))
        task.cancel()
        switch await task.value {
        case .completed: return .cancelled  // finished before the cancel: not a latency sample
        case let other: return other
        }
    }

    /// Stops iterating after the first chunk (the subscription is released).
    private static func abandon(_ url: URL, _ coalescer: DownloadCoalescer) async -> Outcome {
        do {
            for try await event in coalescer.download(DataRequest(url: url)) {
                if case .chunk = event { return .abandoned }
                if case .completed = event { return .abandoned }
            }
            return .unexpected("ended without a chunk")
        } catch {
            return .unexpected("\(error)")
        }
    }
}
