import Foundation
import Testing
@testable import AsyncWebImage

/// The one redaction of URLs: userinfo and signatures out of every text the
/// package writes, however they are spelled and wherever they sit.
@Suite("RedactedURL: userinfo, secret parameters and digests, in any spelling")
struct RedactedURLTests {
    /// base64url of a 32-byte HMAC (an imgproxy signature).
    static let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"

    @Test("redacted", arguments: [
        ("https://user:pw@cdn.example/a.jpg", "https://***@cdn.example/a.jpg"),
        ("https://tenant@cdn.example:8443/a.jpg", "https://***@cdn.example:8443/a.jpg"),
        // a source URL inside the query form, percent-encoded once and twice
        ("/thumbnail?url=http%3A%2F%2Fuser%3Apw%40127.0.0.1%2Fa.jpg&width=8", "/thumbnail?url=http%3A%2F%2F***%40127.0.0.1%2Fa.jpg&width=8"),
        ("/thumbnail?url=http%253A%252F%252Fuser%253Apw%2540h%252Fa.jpg", "/thumbnail?url=http%253A%252F%252F***%2540h%252Fa.jpg"),
        // the plain imgproxy form
        ("/insecure/rs:fit:8:8/plain/http://user:pw@127.0.0.1/a.jpg@png", "/insecure/rs:fit:8:8/plain/http://***@127.0.0.1/a.jpg@png"),
        // a signature parameter anywhere, twice, in any case, or spelled with escapes
        ("/thumbnail?signature=abc&url=x", "/thumbnail?signature=-&url=x"),
        ("/thumbnail?url=x&signature=abc&signature=def", "/thumbnail?url=x&signature=-&signature=-"),
        ("/t?SIGNATURE=abc&sig%6Eature=def", "/t?SIGNATURE=-&sig%6Eature=-"),
        ("https://b.s3.amazonaws.com/a.jpg?X-Amz-Credential=AK%2F1&X-Amz-Signature=f00d&w=1", "https://b.s3.amazonaws.com/a.jpg?X-Amz-Credential=-&X-Amz-Signature=-&w=1"),
        // a parameter of a URL inside another ends where that URL's parameter ends
        ("/thumbnail?url=http%3A%2F%2Fh%2Fa.jpg%3Ftoken%3Dsecret%26w%3D1&width=8", "/thumbnail?url=http%3A%2F%2Fh%2Fa.jpg%3Ftoken%3D-%26w%3D1&width=8"),
        // an imgproxy signature wherever it sits in the path
        ("/\(signature)/rs:fit:8:8/plain/x", "/-/rs:fit:8:8/plain/x"),
        ("//\(signature)/rs:fit:8:8/plain/x", "//-/rs:fit:8:8/plain/x"),
        ("/\(signature)=/rs:fit:8:8/plain/x", "/-/rs:fit:8:8/plain/x"),
        ("error from https://h/\(signature)/a.jpg", "error from https://h/-/a.jpg"),
    ])
    func redacted(text: String, expected: String) {
        #expect(RedactedURL(text).description == expected)
        // Redacting again changes nothing
        #expect(RedactedURL(expected).description == expected)
    }

    @Test("left as it is", arguments: [
        "https://cdn.example/images/cat.jpg?w=64&h=64",
        "/thumbnail?url=http%3A%2F%2F127.0.0.1%3A8080%2Fa.jpg&width=30&height=30",
        "/rs:fit:8:8/g:sm/plain/https://cdn.example/a.jpg@webp",
        "mailto:someone@example.com",
        // a hex digest, a lower-case slug, an imgproxy base64 source
        "https://cdn.example/7f83b1657ff1fc53b92dc18148a1d65dfc2d4b1fa3d677284addd200126d9069.jpg",
        "https://blog.example/posts/how-to-make-thumbnails-that-look-good",
        "/insecure/rs:fit:8:8/aHR0cHM6Ly9jZG4uZXhhbXBsZS9jYXQuanBn.png",
        "",
    ])
    func unchanged(text: String) {
        #expect(RedactedURL(text).description == text)
    }

    @Test("error descriptions carry no userinfo or signature")
    func errors() throws {
        let url = try #require(URL(string: "https://user:secret@cdn.example/a.jpg?sig=abcdef"))
        for error in [ImageError.blockedURL(url), .invalidURL(url.absoluteString), .requestRejected("\(url.absoluteString): refused")] {
            #expect(!error.description.contains("secret") && !error.description.contains("abcdef"), "\(error)")
            #expect(error.description.contains("https://***@cdn.example/a.jpg?sig=-"), "\(error)")
            #expect(error.localizedDescription == error.description)
        }
    }
}
