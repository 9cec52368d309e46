/// The upstream hosts thumbnails may be made from.
///
/// A pattern is a host name (`images.example.com`, matched exactly, case
/// insensitively) or `*.` and a domain (`*.example.com`: every subdomain, not
/// the domain itself). An empty list allows every host.
///
/// The list is checked on the requested URL. It is a statement of intent, not
/// the SSRF defence: a name on the list may still resolve to a private
/// address, which is why the destination guard checks every address curl
/// connects to, and why redirects are off unless asked for.
struct HostAllowList: Sendable {
    private let exact: Set<String>
    private let suffixes: [String]

    /// Whether the list is empty and so allows every host.
    var allowsEveryHost: Bool { exact.isEmpty && suffixes.isEmpty }

    /// Creates a list from patterns as given on the command line.
    init(patterns: [String]) {
        var exact: Set<String> = []
        var suffixes: [String] = []
        for pattern in patterns.map({ $0.lowercased() }) {
            if pattern.hasPrefix("*.") {
                suffixes.append(String(pattern.dropFirst()))        // ".example.com"
            } else {
                exact.insert(pattern)
            }
        }
        self.exact = exact
        self.suffixes = suffixes
    }

    /// Whether `host` (as in the URL, any case, no trailing dot) may be fetched.
    func allows(_ host: String) -> Bool {
        if allowsEveryHost { return true }
        var host = host.lowercased()
        // "example.com." names the same host as "example.com".
        if host.hasSuffix(".") { host.removeLast() }
        return exact.contains(host) || suffixes.contains { host.hasSuffix($0) }
    }
}
