import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// The query form's validation, in process, and one request through the server.
struct ThumbnailRequestTests {
    static func request(_ query: [(String, String)]) throws(ThumbnailError) -> ThumbnailRequest {
        try ThumbnailRequest(values: { name in query.filter { $0.0 == name }.map(\.1) }, maxDimension: 4096)
    }

    @Test("a parameter given twice is a 400 naming it, whatever the values; once each is a request")
    func repeatedParameters() throws {
        let base = [("url", "http://images.example/a.jpg"), ("width", "64"), ("height", "64")]
        #expect(try Self.request(base).size == PixelSize(width: 64, height: 64))
        for (name, value) in [("width", "4096"), ("width", "64"), ("url", "http://other.example/b.jpg"), ("fit", "fill"), ("quality", "80")] {
            let twice = base + (name == "fit" || name == "quality" ? [(name, value), (name, value)] : [(name, value)])
            #expect(throws: ThumbnailError.badRequest("\(name) is given more than once")) { try Self.request(twice) }
        }
        // Parameters the server does not read may repeat.
        #expect(try Self.request(base + [("utm", "1"), ("utm", "2")]).size.width == 64)
    }

    @Test("through the server: width=64&width=4096 is a 400 before anything is fetched")
    func repeatedOverHTTP() throws {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 400, height: 300, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startServer()
        // Signed (the server has a key): the duplicate is refused all the same.
        let reply = try harness.get(try ServerHarness.signedQuery("/thumbnail?url=\(harness.origin)/photo.jpg&width=64&width=4096&height=64"))
        #expect(reply.status == 400)
        #expect(String(decoding: reply.body, as: UTF8.self) == "width is given more than once\n")
        #expect(harness.originRequests == 0)
        #expect(try harness.get(try ServerHarness.signedQuery("/thumbnail?url=\(harness.origin)/photo.jpg&width=64&height=64")).status == 200)
    }
}
