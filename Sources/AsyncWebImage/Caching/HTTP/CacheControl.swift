/// The directives of a response's `Cache-Control` field (RFC 9111 §5.2.2)
/// that the loader acts on. Unknown directives are ignored, as the RFC asks;
/// a directive whose argument does not parse as delta-seconds counts as
/// absent, except where treating it so would make a response more cacheable
/// (a malformed `max-age` makes the response stale, §4.2.1).
struct CacheControl: Hashable, Sendable {
    /// `max-age`, in seconds.
    var maxAge: Int?
    /// `s-maxage`, in seconds (shared caches only).
    var sharedMaxAge: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches.
    var proxyRevalidate = false
    var isPrivate = false
    var isPublic = false
    var immutable = false
    /// `stale-while-revalidate` (RFC 5861), in seconds.
    var staleWhileRevalidate: Int?

    /// Parses one or more `Cache-Control` field values (repeated fields
    /// joined with ", "). Never fails: what it cannot read it leaves out.
    init(_ value: String) {
        // Bounded: a field longer than this is no honest cache policy, and
        // parsing it whole would let a server make every response cost CPU.
        for directive in Self.directives(in: value.utf8.prefix(8192)) {
            let name = directive.name
            switch name {
            case "max-age": maxAge = Self.seconds(directive.argument) ?? 0
            case "s-maxage": sharedMaxAge = Self.seconds(directive.argument) ?? 0
            case "no-store": noStore = true
            // `no-cache="field"` and `private="field"` only restrict named
            // fields; images have none worth keeping apart, so the
            // qualified forms are treated as the plain ones (the safe side).
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "immutable": immutable = true
            case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(directive.argument)
            default: break
            }
        }
    }

    /// Splits a field value into lower-cased directive names and their
    /// arguments (unquoted). Commas inside quoted strings do not split.
    private static func directives(in bytes: Substring.UTF8View) -> [(name: String, argument: String?)] {
        var result: [(name: String, argument: String?)] = []
        var current: [UInt8] = []
        var inQuotes = false
        var pieces: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
            if byte == UInt8(ascii: ","), !inQuotes {
                pieces.append(current)
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        pieces.append(current)
        for piece in pieces.prefix(64) {
            let text = String(decoding: piece, as: UTF8.self)
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingSpaces.lowercased()
            guard !name.isEmpty else { continue }
            var argument: String?
            if parts.count == 2 {
                var value = parts[1].trimmingSpaces
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                argument = value
            }
            result.append((name, argument))
        }
        return result
    }

    /// Delta-seconds (RFC 9111 §1.2.2): digits only; values too large to
    /// hold saturate at 2^31 as the RFC suggests.
    static func seconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        guard argument.utf8.count <= 10, let value = Int(argument) else { return 2_147_483_648 }
        return min(value, 2_147_483_648)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
