import HTTPTypes

/// `Vary` (RFC 9110 §12.5.5) and the matching of stored responses to a
/// request by the fields it names (RFC 9111 §4.1): the field names, each
/// request's normalised values of them, and the secondary key that tells
/// the stored variants of one URL apart.
enum HTTPVary {
    /// The most fields a stored response's `Vary` may name.
    static let maxNames = 32

    /// The field names of a `Vary` value (lines joined with ", "),
    /// lower-cased, `*` included, empty members dropped; at most one more
    /// than ``maxNames`` (enough to tell it is too many).
    static func names(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",").prefix(maxNames + 1).map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
    }

    /// List-based request fields whose members may be respaced and whose
    /// values compare without regard to case: their members are trimmed,
    /// empty ones dropped, and they are lower-cased before comparison
    /// (RFC 9111 §4.1 allows both, "according to the field's specification").
    /// Order is kept: a client's order of preference is meaningful to some origins.
    static let caseInsensitiveLists: Set<HTTPField.Name> = [.accept, .acceptEncoding, .acceptLanguage, HTTPField.Name("Accept-Charset")!]

    /// The value `request` sends for the field `name` (a lower-case name from
    /// `Vary`), normalised as RFC 9111 §4.1 allows: its lines combined, the
    /// whitespace around the whole trimmed, and for the fields of
    /// ``caseInsensitiveLists`` each member trimmed and lower-cased. nil
    /// when the request sends no such field (or `name` is no field name).
    static func normalisedValue(_ name: String, of headers: HTTPFields) -> String? {
        guard let field = HTTPField.Name(name) else { return nil }
        let lines = headers[values: field]
        guard !lines.isEmpty else { return nil }
        let combined = lines.map(\.trimmingSpaces).joined(separator: ", ")
        guard caseInsensitiveLists.contains(field) else { return combined }
        return combined.split(separator: ",").map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }.joined(separator: ",")
    }

    /// The normalised values `headers` gives the fields `names`; a name
    /// the request does not send has no entry.
    static func values(of names: [String], in headers: HTTPFields) -> [String: String] {
        var values: [String: String] = [:]
        for name in names where name != "*" {
            if let value = normalisedValue(name, of: headers) { values[name] = value }
        }
        return values
    }

    /// Whether a request with `headers` matches a stored response whose
    /// `Vary` named `names` and that was selected by `storedValues`: never
    /// with `*`; else each named field absent from both, or present in both
    /// with the same normalised value.
    static func matches(names: [String], storedValues: [String: String]?, headers: HTTPFields) -> Bool {
        if names.contains("*") { return false }
        for name in names where normalisedValue(name, of: headers) != storedValues?[name] {
            return false
        }
        return true
    }

    /// The secondary key of the variant a request with `headers` selects
    /// among the responses whose `Vary` names `names`: `#vary=` and the
    /// SHA-256 of the names and normalised values. Appended to a cache key,
    /// it keeps each variant of one URL in an entry of its own, and spells
    /// no header value in a key or file name.
    static func secondaryKey(names: [String], headers: HTTPFields) -> String {
        let values = values(of: names, in: headers)
        var description = ""
        for name in names.sorted() {
            // Absent and empty are different selections: mark presence.
            description += name + (values[name].map { "=" + $0 } ?? "!") + "\n"
        }
        return "#vary=" + SHA256.hexDigest(description)
    }
}
