/// A `Cache-Control` field value split into its directives, as RFC 9111
/// §5.2 writes them: `#cache-directive`, each `token [ "=" ( token /
/// quoted-string ) ]`.
///
/// Read exactly: a directive name is a token compared without regard to
/// case; no whitespace may stand around its `=` (`max-age =5` has no valid
/// name and is dropped; `max-age= 5` has a name and an argument that is no
/// token, ``Directive/argument`` then `nil` with ``Directive/hasInvalidArgument``).
/// A quoted-string argument is unquoted (backslash escapes undone), as §5.2
/// asks recipients to accept both forms. Commas inside a quoted string do
/// not split directives. Empty list elements are skipped (RFC 9110 §5.6.1).
struct CacheDirectiveList: Sendable {
    /// One directive of the list.
    struct Directive: Sendable, Hashable {
        /// The name, lower-cased.
        let name: String
        /// The argument, unquoted; nil when there is none or it is malformed.
        let argument: String?
        /// Whether an `=` followed the name but what came after it was
        /// neither a token nor a quoted-string.
        let hasInvalidArgument: Bool
        /// Whether the argument was a quoted-string.
        let isQuoted: Bool
    }

    /// The directives, in order (at most ``maxDirectives``).
    let directives: [Directive]

    /// The most bytes of a field value read: a field longer than this is no
    /// honest cache policy, and parsing it whole would let a server make
    /// every response cost CPU.
    static let maxBytes = 8192
    /// The most directives kept.
    static let maxDirectives = 64

    /// Splits `value` (repeated field lines already joined with ", ").
    init(_ value: String) {
        var result: [Directive] = []
        var element: [UInt8] = []
        var inQuotes = false
        var escaped = false
        func flush() {
            if result.count < Self.maxDirectives, let directive = Self.directive(element) { result.append(directive) }
            element.removeAll(keepingCapacity: true)
        }
        for byte in value.utf8.prefix(Self.maxBytes) {
            if inQuotes {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
                element.append(byte)
                continue
            }
            if byte == UInt8(ascii: ",") {
                flush()
                continue
            }
            if byte == UInt8(ascii: "\"") { inQuotes = true }
            element.append(byte)
        }
        flush()
        directives = result
    }

    /// The first directive named `name` (lower-case), if any: where a
    /// directive is repeated, RFC 9111 §4.2.1 lets a cache use the first.
    func first(_ name: String) -> Directive? {
        directives.first { $0.name == name }
    }

    /// Whether a directive named `name` (lower-case) is present.
    func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// One list element, trimmed of optional whitespace, as a directive; nil
    /// when empty or when its name is not a token.
    private static func directive(_ element: [UInt8]) -> Directive? {
        var start = 0
        var end = element.count
        while start < end, isSpace(element[start]) { start += 1 }
        while end > start, isSpace(element[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        let bytes = element[start..<end]
        let equals = bytes.firstIndex(of: UInt8(ascii: "="))
        let nameBytes = bytes[bytes.startIndex..<(equals ?? bytes.endIndex)]
        guard !nameBytes.isEmpty, nameBytes.allSatisfy(isTokenCharacter) else { return nil }
        let name = String(decoding: nameBytes.map { $0 | (isUpperCase($0) ? 0x20 : 0) }, as: UTF8.self)
        guard let equals else { return Directive(name: name, argument: nil, hasInvalidArgument: false, isQuoted: false) }
        let raw = bytes[(equals + 1)...]
        if raw.first == UInt8(ascii: "\"") {
            guard let unquoted = unquote(raw) else {
                return Directive(name: name, argument: nil, hasInvalidArgument: true, isQuoted: true)
            }
            return Directive(name: name, argument: unquoted, hasInvalidArgument: false, isQuoted: true)
        }
        guard !raw.isEmpty, raw.allSatisfy(isTokenCharacter) else {
            return Directive(name: name, argument: nil, hasInvalidArgument: true, isQuoted: false)
        }
        return Directive(name: name, argument: String(decoding: raw, as: UTF8.self), hasInvalidArgument: false, isQuoted: false)
    }

    /// The content of a quoted-string that makes up all of `bytes`; nil when
    /// it is not one (unterminated, or text after the closing quote).
    private static func unquote(_ bytes: ArraySlice<UInt8>) -> String? {
        var content: [UInt8] = []
        var index = bytes.startIndex + 1
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.endIndex else { return nil }
                content.append(bytes[index])
            } else if byte == UInt8(ascii: "\"") {
                return index == bytes.endIndex - 1 ? String(decoding: content, as: UTF8.self) : nil
            } else {
                content.append(byte)
            }
            index += 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func isUpperCase(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// Delta-seconds (RFC 9111 §1.2.2): one or more digits, nothing else;
    /// values too large to hold saturate at 2^31, as the RFC says.
    static func deltaSeconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let significant = argument.drop { $0 == "0" }
        guard significant.utf8.count <= 10, let value = Int(significant.isEmpty ? "0" : significant) else { return 2_147_483_648 }
        return min(value, 2_147_483_648)
    }
}
