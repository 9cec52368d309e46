import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// What a client sends cannot put a secret into the log or forge a record:
/// credentials and signatures are redacted in every URL form and wherever
/// they sit, and every field is escaped. Against a real server's standard error.
@Suite(.serialized)
struct LogSafetyTests {
    /// Every byte but letters and digits as `%XX`.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test("no userinfo in the log from the query form, the plain or the base64url form; no signature when it is not last, twice, or after //")
    func secretsStayOut() throws {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 60, height: 40, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startServer(["--log-level", "info"])
        let credentialed = harness.origin.replacingOccurrences(of: "http://", with: "http://tenant:pw-secret@") + "/photo.jpg"
        let base64 = Data(credentialed.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let plainPath = "/rs:fit:20:20/plain/\(credentialed)@png"
        let base64Path = "/rs:fit:20:20/\(base64).png"
        let query = "/thumbnail?url=\(Self.encoded(credentialed))&width=20&height=20"
        let querySignature = try ServerHarness.signature(of: query)
        let plain = "/thumbnail?url=\(Self.encoded(harness.origin + "/photo.jpg"))&width=20&height=20"
        let plainSignature = try ServerHarness.signature(of: plain)
        let pathSignature = try ServerHarness.signature(of: plainPath)
        let base64Signature = try ServerHarness.signature(of: base64Path)

        // Credentials in each form, validly signed: 400s
        #expect(try harness.get("/" + pathSignature + plainPath).status == 400)
        #expect(try harness.get("/" + base64Signature + base64Path).status == 400)
        #expect(try harness.get(query + "&signature=" + querySignature).status == 400)
        // A valid signature that is not last, given twice, or after an empty segment
        #expect(try harness.get("/thumbnail?signature=\(plainSignature)&" + plain.dropFirst("/thumbnail?".count)).status == 403)
        #expect(try harness.get(plain + "&signature=\(plainSignature)&signature=\(plainSignature)").status == 403)
        #expect(try harness.get("//" + pathSignature + plainPath).status == 404)
        var log = ""
        for _ in 0..<200 where AccessLogTests.lines(log).count < 6 {
            Thread.sleep(forTimeInterval: 0.05)
            log = harness.serverErrors
        }
        #expect(AccessLogTests.lines(log).count == 6, "\(log)")
        for secret in ["pw-secret", "tenant%3Apw", base64, querySignature, plainSignature, pathSignature, base64Signature] {
            #expect(!log.contains(secret), "\(secret) in \(log)")
        }
        #expect(log.contains("/plain/http://***@127.0.0.1"))
        #expect(log.contains("url=http%3A%2F%2F***%40127%2E0%2E0%2E1"))
    }

    @Test("a host with CR LF and ESC, percent-encoded twice: one record, visible escapes, no forged line, no terminal sequence; the 403 body one line")
    func noForgedRecords() throws {
        let harness = try ServerHarness()
        try harness.startServer(["--log-level", "info", "--allow-unsigned-query", "--allow-host", "images.example"])
        let forged = "\r\n2026-01-01T00:00:00+0000 critical thumbnail-server: forged\u{1B}[2J"
        let source = "http://evil" + Self.encoded(forged) + ".example/a.jpg"
        let target = "/thumbnail?url=" + Self.encoded(source) + "&width=8&height=8"
        #expect(target.contains("%250D%250A") && target.contains("%251B"))
        let reply = try harness.get(target)
        #expect(reply.status == 403)
        let body = String(decoding: reply.body, as: UTF8.self)
        #expect(body.hasPrefix("upstream host evil\\r\\n") && body.filter({ $0 == "\n" || $0 == "\r\n" }).count == 1, "\(body)")
        var log = ""
        for _ in 0..<200 where AccessLogTests.lines(log).isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            log = harness.serverErrors
        }
        let records = log.split(separator: "\n")
        #expect(!records.contains { $0.hasPrefix("2026-01-01T00:00:00+0000 critical") }, "\(log)")
        #expect(!log.unicodeScalars.contains("\u{1B}") && !log.contains("\r"))
        let line = try #require(AccessLogTests.lines(log).first)
        #expect(line.contains(#"error="upstream host evil\r\n2026-01-01T00:00:00+0000 critical thumbnail-server: forged\u{1B}[2J.example is not allowed""#), "\(line)")
        #expect(line.contains("status=403"))
    }

    @Test("the one escaping: control characters visible, a backslash doubled, a field quoted when it holds a space, = or a quote")
    func escaping() {
        #expect(LogText.escaped("a\r\nb\tc\u{1B}[31m\u{7F}\u{9B}\u{2028}\u{202E}\\") == #"a\r\nb\tc\u{1B}[31m\u{7F}\u{9B}\u{2028}\u{202E}\\"#)
        #expect(LogText.escaped("plain text: é, 日本") == "plain text: é, 日本")
        #expect(LogText.field("miss") == "miss")
        #expect(LogText.field("HTTP status 404") == #""HTTP status 404""#)
        #expect(LogText.field(#"x status=200 "y""#) == #""x status=200 \"y\"""#)
        #expect(LogText.field("") == #""""#)
    }

    @Test("the logged path: signatures elided after any slashes, a base64url source's userinfo redacted in place")
    func loggedPath() throws {
        let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"
        #expect(AccessLogMiddleware.loggedPath("//\(signature)/rs:fit:1:1/plain/x") == "//-/rs:fit:1:1/plain/x")
        #expect(AccessLogMiddleware.loggedPath("/thumbnail?signature=\(signature)&url=x&signature=y") == "/thumbnail?signature=-&url=x&signature=-")
        let source = Data("https://user:pw@h.example/a.jpg".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let logged = AccessLogMiddleware.loggedPath("/\(signature)/rs:fit:1:1/\(source).png")
        let redacted = try #require(logged.split(separator: "/").last?.dropLast(4))
        #expect(logged.hasPrefix("/-/rs:fit:1:1/") && logged.hasSuffix(".png"))
        #expect(String(data: try #require(URLSigner.decodeBase64URL(redacted)), encoding: .utf8) == "https://***@h.example/a.jpg")
    }
}
