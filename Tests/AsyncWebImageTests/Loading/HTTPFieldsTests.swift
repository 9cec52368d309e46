import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// `HTTPFields` as the header type of requests and responses, through real
/// curl transfers to the loopback server, which records every header line
/// as it arrived.
@Suite("HTTPFields: request and response headers", .timeLimit(.minutes(2)))
struct HTTPFieldsTests {
    /// Serves `response` at `path` and records each request the server reads.
    private static func recording(
        _ server: LoopbackServer, _ path: String, _ response: LoopbackServer.Response = .ok(Data("x".utf8))
    ) -> Locked<[LoopbackServer.Request]> {
        let seen = Locked<[LoopbackServer.Request]>([])
        server.route(path) { request in
            seen.withLock { $0.append(request) }
            return response
        }
        return seen
    }

    @Test("names are sent as spelled, a default is replaced by a request field of any case, repeats are each sent in order")
    func sentAsGiven() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let seen = Self.recording(server, "/h")
        let request = DataRequest(url: server.url("/h"), headers: httpFields([
            "X-Tenant-ID": "42", "accept": "image/webp", "X-Multi": "a", "x-multi": "b",
        ]))

        _ = try await CurlDataLoader().loadData(for: request).collect()

        let fields = try #require(seen.value.first?.fields)
        #expect(fields.contains { $0.name == "X-Tenant-ID" && $0.value == "42" })
        // The default Accept is gone: the request's lower-case one replaced it.
        #expect(fields.filter { $0.name.lowercased() == "accept" }.map(\.name) == ["accept"])
        #expect(fields.filter { $0.name.lowercased() == "accept" }.map(\.value) == ["image/webp"])
        #expect(fields.filter { $0.name.lowercased() == "x-multi" }.map(\.value) == ["a", "b"])
        #expect(fields.first { $0.name == "User-Agent" }?.value == "AsyncWebImage/\(CurlDataLoader.version)")
    }

    @Test("a request field is found by a name of any case; setting it in another case replaces it")
    func matchedWithoutCase() throws {
        var request = DataRequest(url: URL(string: "http://127.0.0.1/a.png")!)
        try request.setValue("Bearer A", forHTTPHeaderField: "authorization")
        #expect(request.headers[.authorization] == "Bearer A")
        try request.setValue("Bearer B", forHTTPHeaderField: "AUTHORIZATION")
        #expect(request.headers[values: .authorization] == ["Bearer B"])
        try request.setValue(nil, forHTTPHeaderField: "Authorization")
        #expect(request.headers.isEmpty)
    }

    @Test("two Set-Cookie and a Cache-Control over two lines: every field is in the head, in order")
    func repeatedResponseFields() async throws {
        let server = try startedServer()
        defer { server.stop() }
        server.route("/c", LoopbackServer.Response(headers: [
            ("Content-Type", "image/png"), ("Set-Cookie", "a=1; Path=/"), ("Cache-Control", "max-age=60"),
            ("set-cookie", "b=2; Path=/"), ("Cache-Control", "public"),
        ], body: Data("x".utf8)))

        let head = try #require(try await CurlDataLoader().loadData(for: DataRequest(url: server.url("/c"))).collect().head)

        #expect(head.headers[values: .setCookie] == ["a=1; Path=/", "b=2; Path=/"])
        #expect(head.headers[.cacheControl] == "max-age=60, public")
        #expect(head.headers[HTTPField.Name("CONTENT-TYPE")!] == "image/png")
        #expect(head.mimeType == "image/png")
    }

    @Test("a response with more header fields than the limit fails with a typed error, not a trap")
    func tooManyResponseFields() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let count = CurlTransfer.maxResponseFields + 1
        server.route("/many", LoopbackServer.Response(
            headers: (0..<count).map { (name: "X-F\($0)", value: "v") }, body: Data("x".utf8)
        ))

        do {
            _ = try await CurlDataLoader().loadData(for: DataRequest(url: server.url("/many"))).collect()
            Issue.record("a response with \(count) fields loaded")
        } catch let error as ImageError {
            guard case .network(let failure) = error else { Issue.record("\(error)"); return }
            #expect(failure.kind == .protocolError)
        }
        // One field fewer than the limit (with Content-Length and the rest) still loads.
        server.route("/enough", LoopbackServer.Response(
            headers: (0..<(CurlTransfer.maxResponseFields - 10)).map { (name: "X-F\($0)", value: "v") }, body: Data("x".utf8)
        ))
        let loaded = try await CurlDataLoader().loadData(for: DataRequest(url: server.url("/enough"))).collect()
        #expect(loaded.head?.headers.count ?? 0 >= CurlTransfer.maxResponseFields - 10)
        #expect(loaded.body == Data("x".utf8))
    }

    @Test("CR/LF in a value set through HTTPFields cannot inject a field: curl sends one line")
    func noInjectionThroughFields() async throws {
        let server = try startedServer()
        defer { server.stop() }
        let seen = Self.recording(server, "/i")
        var request = DataRequest(url: server.url("/i"))
        request.headers[HTTPField.Name("X-Note")!] = "a\r\nX-Injected: yes"

        _ = try await CurlDataLoader().loadData(for: request).collect()

        let fields = try #require(seen.value.first?.fields)
        #expect(!fields.contains { $0.name.lowercased() == "x-injected" })
        #expect(fields.filter { $0.name == "X-Note" }.count == 1)
        #expect(seen.value.count == 1)
    }

    @Test("CR/LF in a value or a bad name given as strings is a typed error, and the server sees no request")
    func refusedBeforeSending() async throws {
        let harness = try PipelineHarness()
        let url = harness.serve("/r.png", try fixture("png", "rgb8.png"))
        for (name, value) in [("X-Note", "a\r\nX-Injected: yes"), ("X-Note", "a\nb"), ("X-Note", "a\u{0}b"), ("Bad Name", "v"), ("X:Y", "v"), ("", "v")] {
            let modifier = RequestModifier { request in
                var request = request
                try request.setValue(value, forHTTPHeaderField: name)
                return request
            }
            do {
                _ = try await harness.loader.response(url, context: ImageContext(requestModifier: modifier))
                Issue.record("\(name.debugDescription): \(value.debugDescription) was sent")
            } catch let error as ImageError {
                guard case .requestRejected(let message) = error else { Issue.record("\(error)"); continue }
                // The message names the field but never echoes a value (it may be a secret).
                #expect(!message.contains("X-Injected"))
            }
        }
        #expect(harness.server.statistics("/r.png").requests == 0)
        // The same modifier with a clean value loads, and the server sees it once.
        let clean = RequestModifier { request in
            var request = request
            try request.setValue("  fine\tvalue ", forHTTPHeaderField: "X-Note")
            return request
        }
        _ = try await harness.loader.response(url, context: ImageContext(requestModifier: clean))
        #expect(harness.server.statistics("/r.png").requests == 1)
        #expect(harness.server.statistics("/r.png").requestHeaders.first?["x-note"] == "fine\tvalue")
    }

    @Test("the identity: name case does not matter, values do, and keys of header requests are the ones stored before")
    func identity() throws {
        let url = URL(string: "http://127.0.0.1/a.png")!
        let upper = DataRequest(url: url, headers: httpFields(["X-Tenant": "42", "Accept": "image/png"]))
        let lower = DataRequest(url: url, headers: httpFields(["accept": "image/png", "x-tenant": "42"]))
        let other = DataRequest(url: url, headers: httpFields(["X-Tenant": "43", "Accept": "image/png"]))
        #expect(upper.key == lower.key)
        #expect(upper.key != other.key)
        let keys = { (request: DataRequest) in
            ImageRequestKeys(url: url, filter: nil, variant: request.key.variant, decodingSuffix: "", transformer: nil)
        }
        #expect(keys(upper).dataKey == keys(lower).dataKey)
        #expect(keys(upper).dataKey != keys(other).dataKey)
        // Before HTTPFields the variant was the sorted lines "h:<lower-case name>: <value>"
        // joined with LF: the same digest, so disk entries written then are found now.
        let before = SHA256.hexDigest(["h:accept: image/png", "h:x-tenant: 42"].joined(separator: "\n"))
        #expect(keys(upper).dataKey == url.absoluteString + "#variant=" + before)
        #expect(keys(DataRequest(url: url)).dataKey == url.absoluteString)
        // A repeated name is one list: the same as one field holding it.
        let repeated = DataRequest(url: url, headers: httpFields(["Accept": "image/png", "accept": "image/webp"]))
        let listed = DataRequest(url: url, headers: httpFields(["Accept": "image/png, image/webp"]))
        #expect(repeated.key == listed.key)
    }
}
