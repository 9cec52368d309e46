import AsyncWebImage
import Foundation
import HTTPTypes
import Testing

/// What only an operator should see stays off the public listener:
/// `/metrics` is on the operator listener, `X-Cache` is off unless asked
/// for. Against a real server process.
@Suite(.serialized)
struct OperatorSurfaceTests {
    @Test("/metrics is a 404 on the public port and answers on the operator port; X-Cache only with --cache-status-header")
    func operatorOnly() throws {
        // Given a server with its defaults but for the operator listener
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 200, height: 100, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned"], cacheStatusHeader: false)
        let path = "/insecure/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png"

        // When a thumbnail is made twice and /metrics asked of both listeners
        let miss = try harness.get(path)
        let hit = try harness.get(path)
        let publicMetrics = try harness.get("/metrics")
        let operatorMetrics = try harness.get("/metrics", at: harness.operatorBase)

        // Then nothing tells a client what the server has seen
        #expect(miss.status == 200 && hit.status == 200)
        #expect(miss.headers[.xCache] == nil && hit.headers[.xCache] == nil)
        #expect(publicMetrics.status == 404)
        #expect(!String(decoding: publicMetrics.body, as: UTF8.self).contains("awi_"))
        // And the operator sees the counts, the library's own timers fed by the server's work
        #expect(operatorMetrics.status == 200)
        let metrics = String(decoding: operatorMetrics.body, as: UTF8.self)
        #expect(metrics.contains("thumbnail_result_cache_hits_total{tier=\"memory\"} 1"))
        #expect(try harness.get("/health", at: harness.operatorBase).status == 200)
        #expect(try harness.get("/health").status == 200)

        // With the flag, X-Cache says where an answer came from
        harness.stopServer()
        try harness.startServer(["--allow-unsigned"], cacheStatusHeader: true)
        #expect(try harness.get(path).headers[.xCache] == "miss")
        #expect(try harness.get(path).headers[.xCache] == "hit-result-memory")
    }

    /// The value of an unlabelled sample `name` in Prometheus text.
    static func sample(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ")[1])
        }
        return nil
    }

    @Test("the loader's decode, transform and encode timers count the server's work: 8 distinct thumbnails, 8 encodes")
    func libraryMetrics() throws {
        let harness = try ImgproxyInterfaceTests.started()
        for width in 40..<44 {
            #expect(try harness.get("/insecure/rs:fit:\(width):\(width)/plain/\(harness.origin)/photo.jpg@png").status == 200)
            #expect(try harness.get("/thumbnail?url=\(harness.origin)/photo.jpg&width=\(width)&height=\(width)").status == 200)
        }
        let metrics = try harness.metricsText()
        #expect(Self.sample("awi_encode_duration_seconds_count", in: metrics) == 8)
        // The imgproxy-style crops (4) and the query form's resizes (4).
        #expect(Self.sample("awi_transform_duration_seconds_count", in: metrics) == 8)
        #expect((Self.sample("awi_decode_duration_seconds_count", in: metrics) ?? 0) >= 1)
        #expect((Self.sample("awi_decoded_pixels_total", in: metrics) ?? 0) > 0)
        #expect(!metrics.contains("thumbnail_decodes_total"))
    }
}
