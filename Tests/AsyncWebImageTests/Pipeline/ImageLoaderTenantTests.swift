import Foundation
import HTTPTypes
import LoopbackServer
import Testing
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// Two tenants of one server: the loopback server returns a different image
/// per `Authorization` token, as a server behind access control does.
@Suite("ImageLoader: tenants never share cached images", .timeLimit(.minutes(2)))
struct ImageLoaderTenantTests {
    /// Serves `/avatar.png`: tenant A's image for `Bearer A`, B's for
    /// `Bearer B`, a public image without a token, 403 for any other token.
    struct Tenants {
        let a = Self.png(value: 10)
        let b = Self.png(value: 200)
        let anonymous = Self.png(value: 99)

        /// A real PNG (the built-in encoder) of an 8×8 gray image.
        static func png(value: UInt8) -> Data {
            // A valid gray image always encodes.
            try! ImageCoderRegistry.allFormats.encode(TestImages.gray(side: 8, value: value), as: .png)
        }

        func route(_ server: LoopbackServer, path: String = "/avatar.png") -> URL {
            let (a, b, anonymous) = (a, b, anonymous)
            server.route(path) { request in
                switch request[header: "Authorization"] {
                case "Bearer A": .ok(a, contentType: "image/png")
                case "Bearer B": .ok(b, contentType: "image/png")
                case nil: .ok(anonymous, contentType: "image/png")
                default: .status(403)
                }
            }
            return server.url(path)
        }
    }

    static func token(_ token: String) -> ImageContext {
        ImageContext(requestModifier: RequestModifier.headers([.authorization: "Bearer \(token)"]))
    }

    @Test("memory never serves one token's image to another token or to no token")
    func memoryDoesNotCross() async throws {
        // Given a loader that has loaded tenant A's image
        let harness = try PipelineHarness()
        let tenants = Tenants()
        let url = tenants.route(harness.server)
        let first = try await harness.loader.response(url, options: .waitStoreCache, context: Self.token("A"))

        // When B, then an anonymous caller, then A again load the same URL
        let b = try await harness.loader.response(url, context: Self.token("B"))
        let anonymous = try await harness.loader.response(url)
        let again = try await harness.loader.response(url, context: Self.token("A"))

        // Then B and the anonymous caller got their own images from the
        // network, and only A's repeat came from memory
        let decode = { (data: Data) in try ImageCoderRegistry.allFormats.decode(data) }
        #expect(first.source == .network)
        #expect(first.image.hasSamePixels(as: try decode(tenants.a)))
        #expect(b.source == .network)
        #expect(b.image.hasSamePixels(as: try decode(tenants.b)))
        #expect(anonymous.source == .network)
        #expect(anonymous.image.hasSamePixels(as: try decode(tenants.anonymous)))
        #expect(again.source == .memory)
        #expect(again.image.hasSamePixels(as: try decode(tenants.a)))
        #expect(harness.requests("/avatar.png") == 3)
        let tokens = harness.server.statistics("/avatar.png").requestHeaders.map { $0.first { $0.key.lowercased() == "authorization" }?.value }
        #expect(tokens == ["Bearer A", "Bearer B", nil])
    }

    @Test("a new loader on the same disk directory never serves one token's image to another")
    func diskDoesNotCross() async throws {
        // Given tenant A's image stored on disk by one loader
        let harness = try PipelineHarness()
        let tenants = Tenants()
        let url = tenants.route(harness.server)
        _ = try await harness.loader.response(url, options: .waitStoreCache, context: Self.token("A"))

        // When a new loader on the same directory loads it for B, anonymously, and for A
        let restarted = harness.restartedLoader()
        let b = try await restarted.response(url, options: .waitStoreCache, context: Self.token("B"))
        let anonymous = try await restarted.response(url, options: .waitStoreCache)
        let a = try await harness.restartedLoader().response(url, context: Self.token("A"))
        let bAgain = try await harness.restartedLoader().response(url, context: Self.token("B"))

        // Then B and the anonymous caller went to the network; A and B's
        // repeats came from their own disk entries
        let decode = { (data: Data) in try ImageCoderRegistry.allFormats.decode(data) }
        #expect(b.source == .network)
        #expect(b.image.hasSamePixels(as: try decode(tenants.b)))
        #expect(anonymous.source == .network)
        #expect(anonymous.image.hasSamePixels(as: try decode(tenants.anonymous)))
        #expect(a.source == .disk)
        #expect(a.data == tenants.a)
        #expect(bAgain.source == .disk)
        #expect(bAgain.data == tenants.b)
        #expect(harness.requests("/avatar.png") == 3)
        // And the anonymous entry kept the plain key of earlier versions
        #expect(try await harness.disk.data(forKey: url.absoluteString) == tenants.anonymous)
    }

    @Test("declaring Authorization irrelevant (the opt-in) shares one cached image across tokens")
    func sharingIsOptIn() async throws {
        // Given a loader whose default context ignores Authorization for caching
        let harness = try PipelineHarness { configuration in
            configuration.defaultContext.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: [HTTPField.Name("authorization")!])
        }
        let tenants = Tenants()
        let url = tenants.route(harness.server)

        // When A then B load the URL
        _ = try await harness.loader.response(url, context: Self.token("A"))
        let b = try await harness.loader.response(url, context: Self.token("B"))

        // Then B got A's image from memory: one request, as declared
        #expect(b.source == .memory)
        #expect(b.image.hasSamePixels(as: try ImageCoderRegistry.allFormats.decode(tenants.a)))
        #expect(harness.requests("/avatar.png") == 1)
    }

    @Test("a 403 for one token leaves another token, and no token, loading")
    func forbiddenBlocksOnlyItsIdentity() async throws {
        // Given a token the server refuses
        let harness = try PipelineHarness()
        let tenants = Tenants()
        let url = tenants.route(harness.server)
        await #expect(throws: ImageError.httpStatus(403)) {
            try await harness.loader.response(url, context: Self.token("C"))
        }

        // When C tries again, and A and an anonymous caller load the URL
        await #expect(throws: ImageError.blockedURL(url)) {
            try await harness.loader.response(url, context: Self.token("C"))
        }
        let a = try await harness.loader.response(url, context: Self.token("A"))
        let anonymous = try await harness.loader.response(url)

        // Then only C's identity is blocked
        #expect(a.source == .network)
        #expect(a.image.hasSamePixels(as: try ImageCoderRegistry.allFormats.decode(tenants.a)))
        #expect(anonymous.source == .network)
        #expect(harness.requests("/avatar.png") == 3)
        #expect(harness.loader.isBlocked(url))
        harness.loader.unblock(url)
        #expect(!harness.loader.isBlocked(url))
    }

    @Test("an image format no coder reads does not block the URL: a coder registered later can read it")
    func unsupportedFormatIsNotPermanent() async throws {
        // Given a BMP header, and a loader with the core's coders only (BMP is
        // a format product's: a known image format no registered coder reads)
        let harness = try PipelineHarness { $0.coders = .builtIn }
        var bmp = Data("BM".utf8) + Data(repeating: 0, count: 12) + Data([40, 0, 0, 0]) + Data(repeating: 0, count: 40)
        bmp[2] = UInt8(bmp.count)
        let url = harness.serve("/picture.bmp", bmp, contentType: "image/bmp")
        await #expect(throws: ImageError.unsupportedFormat(.bmp)) { try await harness.loader.response(url) }

        // When it is loaded again
        await #expect(throws: ImageError.unsupportedFormat(.bmp)) { try await harness.loader.response(url) }

        // Then both loads reached the server: nothing was blocked
        #expect(harness.requests("/picture.bmp") == 2)
        #expect(!harness.loader.isBlocked(url))
    }

    @Test("the same token set in another case and order is one identity")
    func headerSpellingDoesNotSplit() async throws {
        let harness = try PipelineHarness()
        let tenants = Tenants()
        let url = tenants.route(harness.server)
        _ = try await harness.loader.response(url, context: ImageContext(requestModifier: RequestModifier.headers([.authorization: "Bearer A"])))
        let again = try await harness.loader.response(url, context: ImageContext(requestModifier: RequestModifier.headers(httpFields(["authorization": "Bearer A"]))))
        #expect(again.source == .memory)
        #expect(harness.requests("/avatar.png") == 1)
    }
}
