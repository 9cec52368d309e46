import AsyncWebImage
import Foundation
import HTTPTypes
import Testing

/// HEAD, as CDNs and health checks send it, against a real server process:
/// the GET's status and headers, no body, and no work a GET would not do.
@Suite(.serialized)
struct HeadRequestTests {
    @Test("HEAD of a thumbnail: 200, the GET's Content-Length, ETag and Vary, an empty body; a result hit decodes nothing")
    func thumbnails() throws {
        let harness = try ImgproxyInterfaceTests.started()
        // Negotiated from Accept, so the answer varies by it; none is sent
        // by either request here, so both get the same JPEG.
        let path = "/insecure/rs:fit:120:120/plain/\(harness.origin)/photo.jpg"
        let get = try harness.get(path)
        #expect(get.status == 200)
        #expect(!get.body.isEmpty)
        let decodesAfterGet = try harness.decodes()
        #expect(decodesAfterGet == 1)
        let head = try harness.head(path)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers[.contentLength] == String(get.body.count))
        #expect(head.headers[.eTag] != nil && head.headers[.eTag] == get.headers[.eTag])
        #expect(head.headers[.vary] == "Accept" && get.headers[.vary] == "Accept")
        #expect(head.headers[.contentType] == "image/jpeg")
        #expect(head.headers[.xCache] == "hit-result-memory")
        #expect(try harness.decodes() == decodesAfterGet)
        #expect(harness.originRequests == 1)

        // The query form too, on a miss: it does the GET's work and says so.
        let query = "/thumbnail?url=\(harness.origin)/photo.jpg&width=50&height=50&format=png"
        let queryHead = try harness.head(query)
        #expect(queryHead.status == 200)
        #expect(queryHead.body.isEmpty)
        let queryGet = try harness.get(query)
        #expect(queryGet.headers[.xCache] == "hit-result-memory")
        #expect(queryHead.headers[.contentLength] == String(queryGet.body.count))
        #expect(queryHead.headers[.eTag] == queryGet.headers[.eTag])

        // Errors keep their status: a wrong signature is a 403 by HEAD too.
        let refused = try harness.head("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/rs:fit:10:10/plain/\(harness.origin)/photo.jpg")
        #expect(refused.status == 403)
        #expect(refused.body.isEmpty)
    }

    @Test("HEAD of /health and of the operator's /metrics: 200 with the GET's Content-Type, no body")
    func otherRoutes() throws {
        let harness = try ImgproxyInterfaceTests.started()
        let health = try harness.head("/health")
        #expect(health.status == 200)
        #expect(health.body.isEmpty)
        #expect(health.headers[.contentLength] == "3")
        let metrics = try harness.head("/metrics", at: harness.operatorBase)
        #expect(metrics.status == 200)
        #expect(metrics.body.isEmpty)
        #expect(metrics.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
    }
}
