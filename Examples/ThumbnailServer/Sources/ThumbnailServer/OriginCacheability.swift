import AsyncWebImage
import Foundation
import HTTPTypes

/// What the origin's response said about caching the image a thumbnail is
/// made from, read from its head (RFC 9111): a thumbnail is a derivative
/// of the original, so it may be kept and shared no more than the original
/// may.
///
/// The server is a shared cache of its origins, and its results are kept
/// by shared caches too (its own memory, `DIR/results`, the fleet's Redis, a
/// CDN in front): an original that is `private` or `no-store`, or `no-cache`
/// (which this server cannot revalidate a result against), or `Vary: *`
/// (never matches again, §4.1), gives a result that none of them keeps
/// (``isSharedStorable``); the answer then says `no-store`, `private` or
/// `no-cache` as the origin did (``ThumbnailCachePolicy``). Its freshness
/// (`s-maxage`, `max-age`, `Expires` against `Date`, less `Age`) bounds how
/// long a result is kept and the `max-age` it is answered with.
///
/// `Authorization` (§3.5) never reaches an origin from this server: source
/// URLs with credentials are refused (``SourceURL``), so no response is to
/// an authenticated request.
struct OriginCacheability: Sendable, Hashable {
    /// `no-store`: nothing may keep it.
    var noStore = false
    /// `private`: only the client's own cache may keep it.
    var isPrivate = false
    /// `no-cache`: kept only to be revalidated before each use.
    var noCache = false
    /// `must-revalidate` or `proxy-revalidate`: never served stale.
    var mustRevalidate = false
    /// `Vary: *`: a stored copy never matches a later request.
    var variesOnEverything = false
    /// Seconds a shared cache may serve it from when it was received:
    /// `s-maxage`, else `max-age`, else `Expires` − `Date`; `nil` when the
    /// origin said none (the server's own `--max-age` applies).
    var sharedLifetime: Int?
    /// Seconds a client's cache may serve it: `max-age`, else `Expires` − `Date`.
    var clientLifetime: Int?
    /// When the origin's response was received, less its age then
    /// (`Age`, and the apparent age by `Date`): the instant the lifetimes count from.
    var generated: Date

    /// Nothing known about the origin's response (its head was not seen in
    /// this load): only that the loader served it from a shared cache tier,
    /// so it was storable and fresh. Its remaining lifetime is unknown,
    /// so the answer is `no-cache` and the result is not kept.
    static func unknown(at now: Date) -> OriginCacheability {
        OriginCacheability(noCache: true, generated: now)
    }

    /// Reads the cache-related fields of `head`, received at `responseTime`.
    init(head: HTTPResponseHead, responseTime: Date) {
        self.init(fields: head.headers, responseTime: responseTime)
    }

    /// Reads the cache-related `fields` of a response received at `responseTime`.
    init(fields: HTTPFields, responseTime: Date) {
        generated = responseTime
        var sharedMaxAge: Int?
        var maxAge: Int?
        for directive in Self.directives(fields[.cacheControl] ?? "") {
            switch directive.name {
            case "no-store": noStore = true
            case "private": isPrivate = true
            case "no-cache": noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            // A value that is not delta-seconds makes the response stale (§1.2.2).
            case "max-age": maxAge = directive.value.flatMap { Int($0) }.map { max(0, $0) } ?? 0
            case "s-maxage": sharedMaxAge = directive.value.flatMap { Int($0) }.map { max(0, $0) } ?? 0
            default: break
            }
        }
        variesOnEverything = (fields[.vary] ?? "").split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "*" }
        let date = fields[.date].flatMap { HTTPResponseHead.date(fromFieldValue: $0) }
        var expiresLifetime: Int?
        if let expires = fields[.expires] {
            // An Expires that is no date is in the past (§5.3).
            expiresLifetime = HTTPResponseHead.date(fromFieldValue: expires).map { max(0, Int($0.timeIntervalSince(date ?? responseTime))) } ?? 0
        }
        clientLifetime = maxAge ?? expiresLifetime
        sharedLifetime = sharedMaxAge ?? clientLifetime
        // The age when received: the larger of Age and the apparent age (§4.2.3).
        let apparentAge = date.map { max(0, responseTime.timeIntervalSince($0)) } ?? 0
        let ageField = fields[.age].flatMap { Int($0) }.map { TimeInterval(max(0, $0)) } ?? 0
        generated = responseTime.addingTimeInterval(-max(apparentAge, ageField))
    }

    /// Creates a value with every field given (tests, ``unknown(at:)``).
    init(
        noStore: Bool = false, isPrivate: Bool = false, noCache: Bool = false, mustRevalidate: Bool = false,
        variesOnEverything: Bool = false, sharedLifetime: Int? = nil, clientLifetime: Int? = nil, generated: Date
    ) {
        self.noStore = noStore
        self.isPrivate = isPrivate
        self.noCache = noCache
        self.mustRevalidate = mustRevalidate
        self.variesOnEverything = variesOnEverything
        self.sharedLifetime = sharedLifetime
        self.clientLifetime = clientLifetime
        self.generated = generated
    }

    /// Whether a result of it may be kept by a shared cache (this server's
    /// tiers, a CDN): not `no-store`, `private`, `no-cache` or `Vary: *`.
    var isSharedStorable: Bool {
        !noStore && !isPrivate && !noCache && !variesOnEverything
    }

    /// This response refreshed by a `304 Not Modified` with `fields`,
    /// received at `responseTime`: the 304's cache fields replace the
    /// stored ones when it has any (§4.3.4), and the lifetimes count anew.
    func refreshed(by fields: HTTPFields, responseTime: Date) -> OriginCacheability {
        guard fields[.cacheControl] == nil, fields[.expires] == nil else {
            var fresh = OriginCacheability(fields: fields, responseTime: responseTime)
            fresh.variesOnEverything = variesOnEverything
            return fresh
        }
        var fresh = self
        fresh.generated = responseTime
        return fresh
    }

    /// The `Cache-Control` directives of a field value: lower-cased names,
    /// values unquoted.
    static func directives(_ value: String) -> [(name: String, value: String?)] {
        value.split(separator: ",").compactMap { part in
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard let name = pieces.first?.trimmingCharacters(in: .whitespaces).lowercased(), !name.isEmpty else { return nil }
            var argument = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces) : nil
            if let quoted = argument, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                argument = String(quoted.dropFirst().dropLast())
            }
            return (name, argument)
        }
    }
}
