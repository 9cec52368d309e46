import Foundation
import Testing

/// Every in-memory map keyed by client input holds its bound: up to 100,000
/// distinct source URLs of 7.5 KB each (1×1 PNG answers, the worst ratio of
/// key to value) through a real server process, whose resident memory is
/// read from /proc as the load goes.
@Suite(.serialized)
struct MemoryBoundTests {
    /// The helper scripts beside this file.
    static func support(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/\(name)").path
    }

    /// Requests sent: `THUMBNAIL_BOUND_REQUESTS`, else 4,000 (the issue's
    /// first measurement: +38 MiB before keys counted). A debug build answers
    /// about 70 of these a second on 2 cores, so the 100,000 run is
    /// `scripts/smoke-thumbnail-server`'s, against its release build
    /// (`THUMBNAIL_SERVER_BIN`).
    static var requests: Int {
        ProcessInfo.processInfo.environment["THUMBNAIL_BOUND_REQUESTS"].flatMap { Int($0) } ?? 4_000
    }

    @Test("distinct long URLs (100k in the smoke test): resident memory grows by less than the configured caches after the first 10%", .timeLimit(.minutes(15)))
    func distinctLongURLs() throws {
        // Given a server with 8 MiB of decoded-image cache and 4 MiB of
        // result cache, in front of an origin answering every URL with a 1×1 PNG
        let harness = try ServerHarness()
        let originLog = harness.root.appendingPathComponent("tiny-origin.log")
        _ = FileManager.default.createFile(atPath: originLog.path, contents: nil)
        let origin = Process()
        origin.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        origin.arguments = ["python3", "-u", Self.support("tiny_origin.py")]
        origin.standardOutput = try FileHandle(forWritingTo: originLog)
        try origin.run()
        defer {
            kill(origin.processIdentifier, SIGKILL)
            origin.waitUntilExit()
        }
        let originPort = try harness.waitForLine(in: originLog, containing: "port ").split(separator: " ")[1]
        try harness.startServer(["--allow-unsigned", "--cache-mib", "8", "--result-cache-mib", "4", "--max-downloads", "8"])
        let pid = try #require(harness.serverPID)

        // When that many distinct URLs of 7.5 KB are asked for, 4 at a time (at most 13 minutes)
        let output = try ServerHarness.run("/usr/bin/env", [
            "python3", Self.support("distinct_urls.py"), harness.base, "http://127.0.0.1:\(originPort)", String(pid),
            String(Self.requests), "4", "7500", "780",
        ])
        let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(String(decoding: output, as: UTF8.self))")
        let statuses = report["statuses"] as? [String: Int] ?? [:]
        let rss = (report["rss_kib"] as? [String: Int] ?? [:]).map { (Int($0.key) ?? 0, $0.value) }.sorted { $0.0 < $1.0 }
        print("MemoryBoundTests: \(report)")

        // Then every request was answered
        #expect(statuses == ["200": Self.requests], "\(statuses)")
        // And after the first tenth (caches full, allocator warm), resident
        // memory grows by less than the 12 MiB of caches configured: keys
        // are counted, so the maps stop growing at their bounds (before,
        // every 7.5 KB key stayed: 100,000 of them are 750 MB)
        let first = try #require(rss.first).1
        let last = try #require(rss.last).1
        #expect(last - first < 12 * 1024, "RSS KiB by requests done: \(rss)")
    }
}
