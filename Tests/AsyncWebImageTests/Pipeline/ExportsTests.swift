import AsyncWebImage
import LoopbackServer
import Testing

// Deliberately no `import HTTPTypes` and no `@testable`: this file sees only
// what a user's `import AsyncWebImage` gives, so it compiles only while the
// library re-exports swift-http-types.

/// What `import AsyncWebImage` alone brings: the header types of its API.
@Suite("Exports: HTTPTypes through import AsyncWebImage", .timeLimit(.minutes(1)))
struct ExportsTests {
    @Test("the README's header example compiles with import AsyncWebImage alone, and the header is sent")
    func readmeHeaderExample() async throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        server.route("/a.png", .ok(try fixture("png", "rgb8.png"), contentType: "image/png"))
        let url = server.url("/a.png")
        let token = "t0k3n"
        let loader = ImageLoader(configuration: ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: nil)))

        // The README's lines, as written there
        var context = ImageContext()
        context.requestModifier = RequestModifier.headers([.authorization: "Bearer \(token)"])
        let signed = try await loader.response(url, context: context)

        #expect(signed.image.width == 37)
        #expect(server.statistics("/a.png").requestHeaders.last?["authorization"] == "Bearer t0k3n")
        // And the types themselves, by name
        var fields = HTTPFields()
        fields.append(HTTPField(name: .acceptLanguage, value: "fr"))
        var request = DataRequest(url: url)
        request.headers = fields
        #expect(request.headers[.acceptLanguage] == "fr")
    }
}
