import AsyncWebImage
import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import thumbnail_server

/// The result cache's background writes stay bounded in number: in process
/// (writes held at a gate, so every count is exact) and against a real
/// server process hit by a burst of distinct requests.
@Suite(.serialized)
struct ResultWriteQueueTests {
    /// Holds writes until opened; counts how many run at once.
    final class Gate: Sendable {
        private struct State {
            var open = false
            var waiters: [CheckedContinuation<Void, Never>] = []
            var running = 0
            var peak = 0
            var ran = 0
        }

        private let state = NIOLockedValueBox(State())

        /// Waits until ``open()``, counted as running meanwhile.
        func pass() async {
            await withCheckedContinuation { continuation in
                let open = state.withLockedValue { state in
                    state.running += 1
                    state.peak = max(state.peak, state.running)
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
            state.withLockedValue {
                $0.running -= 1
                $0.ran += 1
            }
        }

        func open() {
            let waiters = state.withLockedValue { state in
                state.open = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        var peak: Int { state.withLockedValue { $0.peak } }
        var ran: Int { state.withLockedValue { $0.ran } }
        var running: Int { state.withLockedValue { $0.running } }
    }

    @Test("200 writes against a blocked tier: 4 run, 16 wait, 180 are dropped; all accepted ones run once it frees")
    func burstAgainstBlockedTier() async throws {
        // Given a queue of 4 at once and 16 waiting, and writes that block until the gate opens
        let queue = ResultWriteQueue(maxInFlight: 4, maxQueued: 16)
        let gate = Gate()

        // When 200 writes are submitted at once
        var accepted = 0
        for _ in 0..<200 where queue.submit({ await gate.pass() }) { accepted += 1 }

        // Then exactly 4 start, 16 wait and the rest are dropped, counted
        #expect(accepted == 20)
        var statistics = queue.statistics
        #expect(statistics.started == 4)
        #expect(statistics.queued == 16)
        #expect(statistics.dropped == 180)
        // The 4 reach the gate (bounded wait), and no more than 4 ever run
        for _ in 0..<500 where gate.running < 4 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(gate.running == 4)

        // And once the tier frees, every accepted write runs, never more than 4 at once
        gate.open()
        await queue.waitUntilIdle()
        statistics = queue.statistics
        #expect(gate.ran == 20)
        #expect(gate.peak == 4)
        #expect(statistics == ResultWriteQueue.Statistics(started: 20, finished: 20, dropped: 180, inFlight: 0, queued: 0, peakInFlight: 4))
        // An idle queue takes new writes again
        #expect(queue.submit { await gate.pass() })
        await queue.waitUntilIdle()
        #expect(gate.ran == 21)
    }

    @Test("a queue of 0 runs as many as it may and drops the rest")
    func noQueue() async {
        let queue = ResultWriteQueue(maxInFlight: 1, maxQueued: 0)
        let gate = Gate()
        #expect(queue.submit { await gate.pass() })
        #expect(!queue.submit { await gate.pass() })
        gate.open()
        await queue.waitUntilIdle()
        #expect(gate.ran == 1)
        #expect(queue.statistics.dropped == 1)
    }

    @Test("a burst of 200 distinct requests: every answer 200, at most --result-writes writes at once, stored + dropped = 200")
    func serverBurst() throws {
        // Given a server with a disk result cache, 2 writes at once and 4 waiting
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-burst-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 64, height: 48, as: .png), as: "small.png")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned", "--cache-dir", directory.path, "--result-writes", "2", "--result-write-queue", "4"])

        // When 200 distinct thumbnails are asked for by 32 clients at once
        let paths = (1...200).map { "/insecure/rs:fit:\($0 % 64 + 1):\($0 / 64 + 1)00/q:\($0 % 90 + 5)/plain/\(harness.origin)/small.png@jpg" }
        // (one curl process, `--parallel`: each URL its own transfer)
        let config = harness.root.appendingPathComponent("burst.curlrc")
        try paths.map { "url = \"\(harness.base)\($0)\"\noutput = \"/dev/null\"\n" }.joined().write(to: config, atomically: true, encoding: .utf8)
        let output = try ServerHarness.run("/usr/bin/env", [
            "curl", "-s", "--max-time", "60", "--parallel", "--parallel-max", "32", "-w", "%{http_code}\n", "-K", config.path,
        ])
        let statuses = String(decoding: output, as: UTF8.self).split(separator: "\n").map { Int($0) ?? 0 }

        // Then every answer is a 200, and the writes stayed within their bound,
        // each either done or dropped (read once they are done)
        #expect(statuses == Array(repeating: 200, count: 200))
        var metrics: [String: Double] = [:]
        for _ in 0..<100 {
            metrics = try Self.metrics(harness)
            if (metrics["thumbnail_result_cache_writes_total"] ?? 0) + (metrics["thumbnail_result_cache_dropped_writes_total"] ?? 0) >= 200 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect((metrics["thumbnail_result_cache_writes_in_flight_peak"] ?? 99) <= 2)
        #expect((metrics["thumbnail_result_cache_writes_in_flight_peak"] ?? 0) >= 1)
        #expect((metrics["thumbnail_result_cache_writes_total"] ?? 0) + (metrics["thumbnail_result_cache_dropped_writes_total"] ?? 0) == 200)
    }

    /// The server's /metrics as name → value (unlabelled samples only).
    static func metrics(_ harness: ServerHarness) throws -> [String: Double] {
        var values: [String: Double] = [:]
        for line in try harness.metricsText().split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, !parts[0].contains("{"), let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }
}
