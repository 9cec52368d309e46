public import Foundation

/// A URL — or any text that carries URLs: a request target, an error
/// message — with its secrets replaced: the one redaction behind every URL
/// the package puts in an error description, and the one a server should
/// give its own log lines (the thumbnail server's access log does).
///
/// ```swift
/// RedactedURL("https://user:pw@cdn.example/a.jpg?X-Amz-Signature=abc&w=64").description
/// // "https://***@cdn.example/a.jpg?X-Amz-Signature=-&w=64"
/// ```
///
/// What it replaces, wherever it sits and however often:
/// - the **userinfo** of every URL in the text (`scheme://user:password@host`
///   becomes `scheme://***@host`);
/// - the value of every **query parameter named as a secret**
///   (``secretParameterNames``: `signature`, `sig`, `X-Amz-Signature`,
///   `token`, …, in any case) with `-`, also when the parameter is not the
///   last, appears twice or sits in a URL inside another one;
/// - every **token shaped like a MAC digest** — base64url of 20, 32 or 64
///   bytes (27, 43 or 86 characters, padded or not) with upper- and lower-case
///   letters, such as an imgproxy or thumbor signature — with `-`, in the
///   path as in the query.
///
/// Percent-encoding hides nothing: `http%3A%2F%2Fuser%3Apw%40host` inside a
/// query parameter (or encoded twice, `%253A`) is read as the URL it
/// spells, and its secret is replaced in place, the encoding around it kept.
/// The text is read once from start to end: linear in its length,
/// whatever it holds. Redacting a redacted text changes nothing.
public struct RedactedURL: Sendable, Hashable, CustomStringConvertible {
    /// The text with its secrets replaced.
    public let description: String

    /// What a URL's userinfo becomes.
    public static let userinfoReplacement = "***"
    /// What a secret parameter's value, or a digest-shaped token, becomes.
    public static let secretReplacement = "-"

    /// Query parameter names whose values are secrets, lower-cased: request
    /// signatures (imgproxy-style `signature`, Azure's `sig`, S3's and GCS's
    /// signed-URL parameters), bearer tokens, API keys and passwords.
    public static let secretParameterNames: Set<String> = [
        "signature", "sig", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-goog-signature", "x-goog-credential", "token", "access_token", "id_token", "auth",
        "authorization", "key", "api_key", "apikey", "password", "passwd", "secret", "client_secret",
    ]

    /// `url` redacted.
    public init(_ url: URL) {
        self.init(url.absoluteString)
    }

    /// `text` (a URL, a request target, a message naming URLs) redacted.
    public init(_ text: some StringProtocol) {
        description = Self.redact(String(text))
    }

    // MARK: The scan

    /// One character of the text as any number of percent-encodings spell
    /// it (`@`, `%40`, `%2540` are all `@`): its byte, where its spelling
    /// starts and ends in the text's UTF-8, and how many encodings deep it sits.
    private struct Logical {
        var byte: UInt8
        var start: Int
        var end: Int
        var depth: Int
    }

    private static func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return text }
        let characters = logicalCharacters(bytes)
        var replacements: [(range: Range<Int>, text: String)] = []
        replacements += userinfo(in: characters)
        replacements += secretParameters(in: characters)
        replacements += digestTokens(in: characters)
        guard !replacements.isEmpty else { return text }
        // Ranges may overlap (a digest token inside a secret value): the
        // first to start wins, a range inside it is dropped.
        replacements.sort { $0.range.lowerBound < $1.range.lowerBound }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var position = 0
        for replacement in replacements where replacement.range.lowerBound >= position {
            output += bytes[position..<replacement.range.lowerBound]
            output += Array(replacement.text.utf8)
            position = replacement.range.upperBound
        }
        output += bytes[position...]
        return String(decoding: output, as: UTF8.self)
    }

    private static func logicalCharacters(_ bytes: [UInt8]) -> [Logical] {
        var characters: [Logical] = []
        characters.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let start = index
            var byte = bytes[index]
            var depth = 0
            index += 1
            if byte == UInt8(ascii: "%"), let decoded = hexPair(bytes, at: index) {
                byte = decoded
                index += 2
                depth = 1
                // `%25` is a `%`: with two hex digits after it, one more level.
                while byte == UInt8(ascii: "%"), let deeper = hexPair(bytes, at: index) {
                    byte = deeper
                    index += 2
                    depth += 1
                }
            }
            characters.append(Logical(byte: byte, start: start, end: index, depth: depth))
        }
        return characters
    }

    private static func hexPair(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 1 < bytes.count, let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else { return nil }
        return high << 4 | low
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isSpaceOrControl(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F
    }

    // MARK: Rules

    /// `scheme://USERINFO@host`: the userinfo of every URL, up to the last
    /// `@` before the authority ends (at `/`, `?`, `#`, a space or the end).
    private static func userinfo(in characters: [Logical]) -> [(range: Range<Int>, text: String)] {
        var found: [(range: Range<Int>, text: String)] = []
        var index = 0
        while index + 2 < characters.count {
            guard characters[index].byte == UInt8(ascii: ":"), characters[index + 1].byte == UInt8(ascii: "/"),
                  characters[index + 2].byte == UInt8(ascii: "/") else {
                index += 1
                continue
            }
            let authorityStart = index + 3
            var end = authorityStart
            var lastAt: Int?
            while end < characters.count {
                let byte = characters[end].byte
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || isSpaceOrControl(byte) { break }
                if byte == UInt8(ascii: "@") { lastAt = end }
                end += 1
            }
            if let lastAt, lastAt > authorityStart {
                found.append((characters[authorityStart].start..<characters[lastAt].start, userinfoReplacement))
            }
            index = max(end, index + 3)
        }
        return found
    }

    /// `?name=VALUE` and `&name=VALUE` for every secret name; the value ends
    /// at the next `&` or `#` no deeper in percent-encoding than its `=`
    /// (so a parameter of a URL inside another ends where that URL's ends).
    private static func secretParameters(in characters: [Logical]) -> [(range: Range<Int>, text: String)] {
        var found: [(range: Range<Int>, text: String)] = []
        var index = 0
        while index < characters.count {
            let byte = characters[index].byte
            guard byte == UInt8(ascii: "?") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") else {
                index += 1
                continue
            }
            var nameEnd = index + 1
            var name: [UInt8] = []
            while nameEnd < characters.count, name.count <= 32 {
                let character = characters[nameEnd].byte
                if character == UInt8(ascii: "=") || character == UInt8(ascii: "&") || character == UInt8(ascii: "?")
                    || character == UInt8(ascii: "#") || character == UInt8(ascii: "/") || isSpaceOrControl(character) { break }
                name.append(character >= UInt8(ascii: "A") && character <= UInt8(ascii: "Z") ? character + 32 : character)
                nameEnd += 1
            }
            guard nameEnd < characters.count, characters[nameEnd].byte == UInt8(ascii: "="), !name.isEmpty,
                  secretParameterNames.contains(String(decoding: name, as: UTF8.self)) else {
                index += 1
                continue
            }
            let depth = characters[nameEnd].depth
            let valueStart = nameEnd + 1
            var valueEnd = valueStart
            while valueEnd < characters.count {
                let character = characters[valueEnd]
                if (character.byte == UInt8(ascii: "&") || character.byte == UInt8(ascii: "#")) && character.depth <= depth { break }
                if isSpaceOrControl(character.byte) { break }
                valueEnd += 1
            }
            if valueEnd > valueStart {
                found.append((characters[valueStart].start..<characters[valueEnd - 1].end, secretReplacement))
            }
            index = valueEnd
        }
        return found
    }

    /// Runs of base64url characters (with up to two `=` of padding) as long
    /// as the base64url of a 20, 32 or 64-byte MAC, with upper- and
    /// lower-case letters (a hex digest or a lower-case slug is not one).
    private static func digestTokens(in characters: [Logical]) -> [(range: Range<Int>, text: String)] {
        var found: [(range: Range<Int>, text: String)] = []
        var index = 0
        while index < characters.count {
            guard isBase64URL(characters[index].byte) else {
                index += 1
                continue
            }
            let start = index
            var upper = false, lower = false
            while index < characters.count, isBase64URL(characters[index].byte) {
                let byte = characters[index].byte
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { upper = true }
                if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { lower = true }
                index += 1
            }
            let length = index - start
            var end = index
            while end < characters.count, end - index < 2, characters[end].byte == UInt8(ascii: "=") { end += 1 }
            // A digest's padding: one `=` after 27 or 43 characters, two after 86.
            let padding = end - index
            let padded = (padding == 1 && (length == 27 || length == 43)) || (padding == 2 && length == 86)
            if upper && lower && [27, 43, 86].contains(length) {
                found.append((characters[start].start..<characters[(padded ? end : index) - 1].end, secretReplacement))
            }
            index = end
        }
        return found
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
