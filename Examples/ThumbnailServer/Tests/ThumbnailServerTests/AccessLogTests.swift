import AsyncWebImage
@testable import thumbnail_server
import Foundation
import HTTPTypes
import Testing

/// One access-log line per request at `info`, with what an operator needs
/// and without the signature. Against a real server process's standard error.
@Suite(.serialized)
struct AccessLogTests {
    /// The access-log lines of `log`: those with a `status=` field.
    static func lines(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains("status=") }
    }

    @Test("--log-level info: method, path with the signature elided, status, bytes, duration, cache outcome, error reason; 404 for unknown paths")
    func accessLog() throws {
        // Given a server logging at info, with a key
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 200, height: 100, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startServer(["--log-level", "info", "--allow-unsigned-query"])
        let path = "/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png"
        let signature = try ServerHarness.signature(of: path)
        let query = "/thumbnail?url=\(harness.origin)/photo.jpg&width=30&height=30"
        let querySignature = try ServerHarness.signature(of: query)

        // When a miss, a hit, an upstream 404, an unknown route and a signed query form are asked
        let miss = try harness.get("/" + signature + path)
        _ = try harness.get("/" + signature + path)
        let failed = try harness.get("/thumbnail?url=\(harness.origin)/missing.jpg&width=10&height=10")
        let unknown = try harness.get("/favicon.ico")
        _ = try harness.get(query + "&signature=" + querySignature)
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while lines.count < 5, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            lines = Self.lines(harness.serverErrors)
        }

        // Then there is one line per request, in order
        #expect(lines.count == 5, "\(lines)")
        guard lines.count == 5 else { return }
        #expect(miss.status == 200 && failed.status == 502 && unknown.status == 404)
        #expect(lines[0].contains("info"))
        #expect(lines[0].contains("GET /-/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png"))
        #expect(lines[0].contains("status=200") && lines[0].contains("bytes=\(miss.body.count)") && lines[0].contains("cache=miss"))
        #expect(lines[0].contains("duration_ms="))
        #expect(lines[1].contains("cache=hit-result-memory"))
        #expect(lines[2].contains("status=502") && lines[2].contains("error=") && lines[2].contains("404"), "\(lines[2])")
        #expect(lines[3].contains("GET /favicon.ico") && lines[3].contains("status=404"))
        #expect(lines[4].contains("signature=-") && lines[4].contains("status=200"))
        // And no signature is in the log
        #expect(!harness.serverErrors.contains(signature))
        #expect(!harness.serverErrors.contains(querySignature))
    }

    @Test("the logged path elides signatures and is cut at 1 KB")
    func loggedPath() {
        #expect(AccessLogMiddleware.loggedPath("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/rs:fit:1:1/plain/x") == "/-/rs:fit:1:1/plain/x")
        #expect(AccessLogMiddleware.loggedPath("/insecure/rs:fit:1:1/plain/x") == "/insecure/rs:fit:1:1/plain/x")
        #expect(AccessLogMiddleware.loggedPath("/thumbnail?url=x&signature=SECRET") == "/thumbnail?url=x&signature=-")
        #expect(AccessLogMiddleware.loggedPath("/health") == "/health")
        let long = AccessLogMiddleware.loggedPath("/health?" + String(repeating: "a", count: 5000))
        #expect(long.hasSuffix("… (5008 bytes)") && long.utf8.count < 1100)
    }
}
