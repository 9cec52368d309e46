import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// `--max-url-length`: a request target past it is a 414 before anything is
/// parsed or fetched, in both URL forms; one at the limit is served.
@Suite(.serialized)
struct URLLengthLimitTests {
    @Test("the flag and its environment variable set the limit; 8192 by default; below 64 is a usage error")
    func options() async throws {
        #expect(try await ServerOptions.parsed([], environment: [:]).maxURILength == 8192)
        #expect(try await ServerOptions.parsed([], environment: ["THUMBNAIL_MAX_URL_LENGTH": "1000"]).maxURILength == 1000)
        #expect(try await ServerOptions.parsed(["--max-url-length", "300"], environment: ["THUMBNAIL_MAX_URL_LENGTH": "1000"]).maxURILength == 300)
        await #expect(throws: UsageError.self) { try await ServerOptions.parsed(["--max-url-length", "10"], environment: [:]) }
        await #expect(throws: UsageError.self) { try await ServerOptions.parsed(["--max-url-length", "8k"], environment: [:]) }
    }

    /// A query-form target of exactly `length` bytes whose source URL is the
    /// origin's photo with a padding query (the origin ignores it).
    static func target(length: Int, origin: String) -> String {
        let prefix = "/thumbnail?width=50&height=50&url=\(origin)/photo.jpg?pad="
        return prefix + String(repeating: "a", count: max(0, length - prefix.utf8.count))
    }

    @Test("default limit: a 20 KB source URL is a 414 in either form, the origin never asked; 8192 bytes are served")
    func defaultLimit() throws {
        let harness = try ImgproxyInterfaceTests.started()
        let long = try harness.get(Self.target(length: 20_000, origin: harness.origin))
        #expect(long.status == 414)
        #expect(String(decoding: long.body, as: UTF8.self) == "the request URL is 20000 bytes, over the limit of 8192 (--max-url-length)\n")
        let padding = String(repeating: "a", count: 20_000)
        let processed = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/photo.jpg%3Fpad%3D\(padding)@png")
        #expect(processed.status == 414)
        #expect(harness.originRequests == 0)
        let atLimit = try harness.get(Self.target(length: 8192, origin: harness.origin))
        #expect(atLimit.status == 200)
        #expect(harness.originRequests == 1)
    }

    @Test("--max-url-length 300: 301 bytes are a 414, 300 are served")
    func configuredLimit() throws {
        let harness = try ImgproxyInterfaceTests.started(["--allow-unsigned", "--max-url-length", "300"])
        #expect(try harness.get(Self.target(length: 301, origin: harness.origin)).status == 414)
        #expect(harness.originRequests == 0)
        #expect(try harness.get(Self.target(length: 300, origin: harness.origin)).status == 200)
    }

    /// `path` with a padding query making it exactly `length` bytes.
    static func padded(_ path: String, length: Int) -> String {
        let prefix = path + "?pad="
        return prefix + String(repeating: "a", count: max(0, length - prefix.utf8.count))
    }

    @Test("every route of both listeners is limited, HEAD included: /health, /metrics, both thumbnail forms; 300 bytes still answer")
    func everyRoute() throws {
        let harness = try ImgproxyInterfaceTests.started(["--allow-unsigned", "--max-url-length", "300"])
        for (path, base) in [
            ("/health", harness.base), ("/metrics", harness.operatorBase), ("/health", harness.operatorBase),
            ("/insecure/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png", harness.base),
        ] {
            let long = try harness.get(Self.padded(path, length: 301), at: base)
            #expect(long.status == 414, "GET \(path)")
            #expect(String(decoding: long.body, as: UTF8.self) == "the request URL is 301 bytes, over the limit of 300 (--max-url-length)\n")
            #expect(try harness.head(Self.padded(path, length: 301), at: base).status == 414, "HEAD \(path)")
        }
        #expect(try harness.head(Self.target(length: 301, origin: harness.origin)).status == 414)
        #expect(harness.originRequests == 0)
        #expect(try harness.get(Self.padded("/health", length: 300)).status == 200)
        #expect(try harness.head(Self.padded("/health", length: 300)).status == 200)
        #expect(try harness.get(Self.padded("/metrics", length: 300), at: harness.operatorBase).status == 200)
    }
}
