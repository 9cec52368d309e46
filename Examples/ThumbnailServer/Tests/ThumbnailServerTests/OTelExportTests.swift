#if OpenTelemetry
import AsyncWebImage
import Foundation
import Testing

/// `--otel-endpoint`: the spans and metrics the server and the library make
/// are exported over OTLP/HTTP (protobuf), to a small receiver this test
/// starts on 127.0.0.1 and decodes.
@Suite(.serialized)
struct OTelExportTests {
    /// One decoded export request, as the receiver logged it.
    struct Export: Decodable {
        struct Span: Decodable {
            let name: String
            let trace: String
            let id: String
            let parent: String
            let attributes: [String: String]?
        }

        let path: String
        let content_type: String?
        let spans: [Span]?
        let services: [String]?
        let metrics: [String]?
        let error: String?
    }

    static func exports(in log: URL) -> [Export] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Export.self, from: Data($0.utf8)) }
    }

    @Test("a thumbnail's request span, with the loader's image.load and image.encode spans in its trace, and the metrics, reach the OTLP receiver", .timeLimit(.minutes(2)))
    func export() throws {
        // Given an OTLP receiver and a server exporting to it (spans batched
        // for 100 ms, metrics every 500 ms, by swift-otel's OTEL_* variables)
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 200, height: 100, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        let receiverOut = harness.root.appendingPathComponent("otlp.out")
        let receiverLog = harness.root.appendingPathComponent("otlp.jsonl")
        _ = FileManager.default.createFile(atPath: receiverOut.path, contents: nil)
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        receiver.arguments = ["python3", "-u", MemoryBoundTests.support("otlp_receiver.py"), receiverLog.path]
        receiver.standardOutput = try FileHandle(forWritingTo: receiverOut)
        try receiver.run()
        defer {
            kill(receiver.processIdentifier, SIGKILL)
            receiver.waitUntilExit()
        }
        let port = try harness.waitForLine(in: receiverOut, containing: "port ").split(separator: " ")[1]
        try harness.startServer(
            ["--allow-unsigned", "--otel-endpoint", "http://127.0.0.1:\(port)"],
            environment: ["OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "500"]
        )

        // When a thumbnail is made, and two requests carry secrets: a signature, a source URL's password
        let reply = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png")
        #expect(reply.status == 200)
        let signedPath = "/rs:fit:40:40/plain/\(harness.origin)/photo.jpg@png"
        let signature = try ServerHarness.signature(of: signedPath)
        #expect(try harness.get("/" + signature + signedPath).status == 200)
        let credentialed = harness.origin.replacingOccurrences(of: "http://", with: "http://tenant:pw-secret@") + "/photo.jpg"
        let encoded = credentialed.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? credentialed
        #expect(try harness.get("/thumbnail?url=\(encoded)&width=8&height=8").status == 400)

        // Then (within 20 s) the receiver has its spans and the metrics
        var exports: [Export] = []
        let deadline = Date().addingTimeInterval(20)
        func spans() -> [Export.Span] { exports.flatMap { $0.spans ?? [] } }
        func metrics() -> Set<String> { Set(exports.flatMap { $0.metrics ?? [] }) }
        func targets() -> [String] { spans().compactMap { $0.attributes?["url.path"] } }
        while Date() < deadline,
              !(spans().contains { $0.name == "image.encode" } && metrics().contains("awi_encode_duration_seconds") && targets().count >= 3) {
            Thread.sleep(forTimeInterval: 0.1)
            exports = Self.exports(in: receiverLog)
        }
        #expect(exports.allSatisfy { $0.error == nil && $0.content_type == "application/x-protobuf" })
        #expect(exports.contains { $0.services == ["thumbnail-server"] })
        let all = spans()
        let request = try #require(all.first { $0.name.contains("/") && $0.parent.isEmpty }, "\(all.map(\.name))")
        let load = try #require(all.first { $0.name == "image.load" })
        let encode = try #require(all.first { $0.name == "image.encode" })
        // The loader's spans are in the request's trace: its work, not another's.
        #expect(load.trace == request.trace && encode.trace == request.trace)
        #expect(all.contains { $0.name == "image.decode" && $0.trace == request.trace })
        #expect(metrics().isSuperset(of: ["awi_encode_duration_seconds", "awi_decode_duration_seconds", "hb.requests"]), "\(metrics())")
        // The request spans record each target with its secrets replaced (SpanTargetRedaction)
        let recorded = all.compactMap(\.attributes).flatMap { [$0["url.path"], $0["url.query"]].compactMap { $0 } }
        #expect(recorded.contains("/-" + signedPath), "\(recorded)")
        #expect(recorded.contains { $0.contains("url=http%3A%2F%2F***%40127") }, "\(recorded)")
        for secret in [signature, "pw-secret", "pw%2Dsecret"] {
            #expect(!recorded.contains { $0.contains(secret) }, "\(secret) in \(recorded)")
        }
    }
}
#endif
