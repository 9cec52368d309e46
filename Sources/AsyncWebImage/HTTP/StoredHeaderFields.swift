import HTTPTypes

/// The header fields a cache keeps of a response, returns with it, and
/// updates from a `304 Not Modified` (RFC 9111 §3.1, §3.2, §4.3.4): the
/// response's own fields, in order, with their names as sent, less those
/// that must not be stored.
///
/// Left out when storing (§3.1):
/// - `Connection` and every field it names, and the other fields RFC 9110
///   §7.6.1 removes before forwarding (`Keep-Alive`, `Proxy-Connection`,
///   `TE`, `Transfer-Encoding`, `Upgrade`): they describe one connection;
/// - the fields of the proxy that forwarded the response
///   (`Proxy-Authenticate`, `Proxy-Authentication-Info`, `Proxy-Authorization`);
/// - the fields a qualified `no-cache="…"` names: they may not be reused
///   without revalidation (§5.2.2.4), and keeping none is the simplest way
///   to never reuse them;
/// - in a shared cache, the fields a qualified `private="…"` names (§5.2.2.7).
///
/// The fields are bounded (``maxFields``, ``maxBytes``): a header section
/// beyond the bound keeps its first fields; the fields the cache's own
/// decisions read are kept apart in ``HTTPCacheMetadata`` and never cut.
struct StoredHeaderFields: Hashable, Sendable {
    /// The fields, in order; a repeated name once per line.
    private(set) var fields: [HTTPField]

    /// The most fields kept.
    static let maxFields = 256
    /// The most bytes of names and values kept.
    static let maxBytes = 32_768

    /// The fields of a connection or of the proxy, never stored.
    static let connectionFields: Set<HTTPField.Name> = [
        .connection, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!, .te,
        .transferEncoding, .upgrade, .proxyAuthenticate, .proxyAuthenticationInfo, .proxyAuthorization,
    ]

    /// The fields of `headers` a cache in `mode` stores, for a response whose
    /// `Cache-Control` is `control`.
    init(storing headers: HTTPFields, control: CacheControl, mode: ImageLoader.HTTPCacheMode) {
        let excluded = Self.excluded(by: headers, control: control, mode: mode)
        var kept: [HTTPField] = []
        var bytes = 0
        for field in headers where !excluded(field.name) {
            let size = field.name.rawName.utf8.count + field.value.utf8.count
            guard kept.count < Self.maxFields, bytes + size <= Self.maxBytes else { break }
            kept.append(field)
            bytes += size
        }
        fields = kept
    }

    /// Fields as stored before (decoded from an entry).
    init(stored fields: [HTTPField]) {
        self.fields = fields
    }

    /// These fields updated by the header section of a `304 Not Modified`
    /// (§3.2): every field the 304 carries replaces the stored lines of that
    /// name, except those never stored and `Content-Length` (which
    /// describes the 304's own, empty, content).
    ///
    /// - Parameters:
    ///   - headers: The 304's header fields.
    ///   - control: The `Cache-Control` that holds after the update.
    ///   - mode: The cache's mode.
    func updated(by headers: HTTPFields, control: CacheControl, mode: ImageLoader.HTTPCacheMode) -> StoredHeaderFields {
        let excluded = Self.excluded(by: headers, control: control, mode: mode)
        let incoming = headers.filter { !excluded($0.name) && $0.name != .contentLength }
        let replaced = Set(incoming.map(\.name))
        // Fields the new policy no longer lets the cache keep go too.
        var merged = fields.filter { !replaced.contains($0.name) && !excluded($0.name) }
        merged.append(contentsOf: incoming)
        return StoredHeaderFields(storing: HTTPFields(merged), control: control, mode: mode)
    }

    /// The fields as `HTTPFields`.
    var httpFields: HTTPFields { HTTPFields(fields) }

    /// Which names are never stored for a response with `headers` and `control`.
    private static func excluded(by headers: HTTPFields, control: CacheControl, mode: ImageLoader.HTTPCacheMode) -> (HTTPField.Name) -> Bool {
        var named = Set<HTTPField.Name>()
        for value in headers[values: .connection] {
            for token in value.split(separator: ",") {
                if let name = HTTPField.Name(token.trimmingSpaces) { named.insert(name) }
            }
        }
        for field in control.noCacheFields { if let name = HTTPField.Name(field) { named.insert(name) } }
        if mode.isShared {
            for field in control.privateFields { if let name = HTTPField.Name(field) { named.insert(name) } }
        }
        return { connectionFields.contains($0) || named.contains($0) }
    }
}
