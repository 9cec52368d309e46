/// The directives of a response's `Cache-Control` field (RFC 9111 §5.2.2,
/// RFC 5861, RFC 8246) that the loader acts on, read from a
/// ``CacheDirectiveList``. Unknown directives are ignored, as the RFC asks.
///
/// Where a directive is repeated (on one line or over several), the first
/// occurrence counts (§4.2.1). A freshness directive (`max-age`, `s-maxage`)
/// whose argument is not delta-seconds makes the response stale (§4.2.1:
/// "consider responses that have invalid freshness information to be
/// stale"); other directives with a malformed argument count as absent.
struct CacheControl: Hashable, Sendable {
    /// `max-age`, in seconds (0 when malformed).
    var maxAge: Int?
    /// `s-maxage`, in seconds (shared caches only; 0 when malformed).
    var sharedMaxAge: Int?
    var noStore = false
    /// `no-cache` without field names: revalidate before every reuse.
    var noCache = false
    /// The field names of the qualified `no-cache="…"` (lower-cased): these
    /// fields are not reused without revalidation, so the cache keeps none of them.
    var noCacheFields: [String] = []
    var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches.
    var proxyRevalidate = false
    /// `private` without field names: a shared cache stores nothing.
    var isPrivate = false
    /// The field names of the qualified `private="…"` (lower-cased): a shared
    /// cache stores the response without them.
    var privateFields: [String] = []
    var isPublic = false
    /// `must-understand` (§5.2.2.3): store only when the cache knows the status code's rules.
    var mustUnderstand = false
    var immutable = false
    /// `stale-while-revalidate` (RFC 5861 §3), in seconds.
    var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861 §4), in seconds.
    var staleIfError: Int?

    /// Parses one or more `Cache-Control` field values (repeated fields
    /// joined with ", "). Never fails: what it cannot read it leaves out.
    init(_ value: String) {
        self.init(CacheDirectiveList(value))
    }

    /// The response directives of `list`.
    init(_ list: CacheDirectiveList) {
        if let directive = list.first("max-age") { maxAge = Self.freshness(directive) }
        if let directive = list.first("s-maxage") { sharedMaxAge = Self.freshness(directive) }
        if let directive = list.first("no-cache") {
            if let argument = directive.argument {
                noCacheFields = Self.fieldNames(argument)
            } else {
                // A malformed qualifier cannot say which fields: the whole
                // response is revalidated, the safe reading.
                noCache = true
            }
        }
        if let directive = list.first("private") {
            if let argument = directive.argument {
                privateFields = Self.fieldNames(argument)
            } else {
                isPrivate = true
            }
        }
        noStore = list.contains("no-store")
        mustRevalidate = list.contains("must-revalidate")
        proxyRevalidate = list.contains("proxy-revalidate")
        isPublic = list.contains("public")
        mustUnderstand = list.contains("must-understand")
        immutable = list.contains("immutable")
        staleWhileRevalidate = list.first("stale-while-revalidate").flatMap { CacheDirectiveList.deltaSeconds($0.argument) }
        staleIfError = list.first("stale-if-error").flatMap { CacheDirectiveList.deltaSeconds($0.argument) }
    }

    /// A freshness lifetime directive's seconds; 0 (stale) when it has no
    /// valid delta-seconds argument.
    private static func freshness(_ directive: CacheDirectiveList.Directive) -> Int {
        CacheDirectiveList.deltaSeconds(directive.argument) ?? 0
    }

    /// The field names of a qualified `no-cache` or `private` argument,
    /// lower-cased, at most 32.
    private static func fieldNames(_ argument: String) -> [String] {
        argument.split(separator: ",").prefix(32).map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
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
