import AsyncWebImage
import Foundation

/// A request target (path and query, as sent) as the server records it —
/// in the access log and in the request's span — with every secret
/// replaced: the library's ``RedactedURL`` (userinfo of the source URL in
/// any of its spellings, `signature=` and other secret parameters wherever
/// they sit, digest-shaped tokens), and what only this server knows:
///
/// - the first segment of an imgproxy-style path, its signature, after any
///   number of slashes (`//SIG/…`), unless it is `insecure`;
/// - the userinfo of a base64url source URL (`/SIG/rs:…/aHR0cDov….jpg`),
///   which no text search sees: it is decoded, redacted and encoded again.
enum LoggedTarget {
    /// `target` with its secrets replaced.
    static func redacted(_ target: String) -> String {
        var path = target[...]
        var prefix = ""
        if path.hasPrefix("/"), !path.hasPrefix("/thumbnail") {
            // Slashes before the first segment: `//SIG/…` still signs `/…`.
            let slashes = path.prefix { $0 == "/" }
            let rest = path[slashes.endIndex...]
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            let first = rest[..<end]
            if first != "insecure", SignaturePolicy.isSignatureShaped(first) {
                prefix = String(slashes) + RedactedURL.secretReplacement
                path = rest[end...]
            } else if first == "insecure" {
                prefix = String(slashes) + first
                path = rest[end...]
            }
            if !prefix.isEmpty, let source = redactedBase64Source(path) { path = source[...] }
        }
        return RedactedURL(prefix + path).description
    }

    /// The processing path after the signature (`/rs:…/aHR0cDov….jpg`)
    /// with its base64url source URL redacted, or `nil` when it has none or
    /// the source carries no secret.
    private static func redactedBase64Source(_ path: Substring) -> String? {
        let query = path.firstIndex(of: "?") ?? path.endIndex
        let segments = path[..<query].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let sourceStart = segments.firstIndex(where: { !$0.contains(":") }), segments[sourceStart] != "plain" else { return nil }
        var encoded = segments[sourceStart...].joined()[...]
        var extensionName = ""
        if let dot = encoded.lastIndex(of: ".") {
            extensionName = String(encoded[dot...])
            encoded = encoded[..<dot]
        }
        guard let data = URLSigner.decodeBase64URL(encoded), let source = String(data: data, encoding: .utf8) else { return nil }
        let redacted = RedactedURL(source).description
        guard redacted != source else { return nil }
        let reencoded = Data(redacted.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let options = segments[..<sourceStart].map { "/" + $0 }.joined()
        return options + "/" + reencoded + extensionName + path[query...]
    }
}
