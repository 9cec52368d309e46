import Foundation
import HTTPTypes

/// What a cache entry keeps of the response that filled it, stored as the
/// entry's extended data on disk (and in the shared tier) and with the
/// decoded image in memory: the validators, the header fields that decide
/// freshness, when the response arrived, and the request header values its
/// `Vary` names. Freshness is derived from it when read (``HTTPFreshness``),
/// so a `304` merges its header fields in and the entry is fresh again.
///
/// The JSON keeps `etag` and `lastModified` at the top level, where
/// ``CacheValidators`` (and entries written before this type) have them.
struct HTTPCacheMetadata: Codable, Hashable, Sendable {
    /// The header fields freshness and `Vary` are computed from; stored
    /// under their lower-case names.
    static let fieldNames: [HTTPField.Name] = [.cacheControl, .expires, .date, .age, .vary]

    /// The value of `name` in `head` as a cache reads it. `Cache-Control`
    /// and `Vary` are lists: their lines combined with ", " (RFC 9110 §5.3).
    /// The others are singletons (``SingletonField``); repeated with
    /// different values, each reads as an invalid value of its own:
    /// - `Expires`: `"0"`, the invalid date RFC 9111 §5.3 names, which
    ///   means already expired (§4.2.1 allows "considered stale");
    /// - `Date`: none, so the response time stands in for it (RFC 9110
    ///   §6.6.1 lets a recipient replace an invalid `Date` with it);
    /// - `Age`: the first member of the first line, as RFC 9111 §5.1 says of
    ///   a list-based `Age`;
    /// - `ETag`, `Last-Modified`: none, so no conditional request names a
    ///   validator the origin may not have meant.
    static func value(of name: HTTPField.Name, in head: DataResponseHead) -> String? {
        if name == .cacheControl || name == .vary { return head.headers[name] }
        if name == .age {
            return head.headers[values: .age].first.map { $0.prefix { $0 != "," }.trimmingSpaces }
        }
        switch head.headers.singleton(name) {
        case .absent: return nil
        case .value(let value): return value
        case .conflicting: return name == .expires ? "0" : nil
        }
    }

    var etag: String?
    var lastModified: String?
    /// The ``fieldNames`` the response had.
    var fields: [String: String]?
    /// When the response arrived, in seconds since 1970.
    var responseTime: Double?
    /// For each field `Vary` names (lower-cased), the request's value; a
    /// name with no value was absent from the request.
    var varyValues: [String: String]?
    /// Set when the response's policy could not be kept whole (a field over
    /// 4 KiB, a `Vary` naming more than 32 fields): such a response is not
    /// stored, since a cut policy could serve it where it must not be.
    var isOversized: Bool?

    /// The metadata of `head`, a response to `request` that arrived at `responseTime`.
    init(head: DataResponseHead, request: DataRequest, responseTime: Date) {
        etag = Self.value(of: .eTag, in: head)
        lastModified = Self.value(of: .lastModified, in: head)
        var fields: [String: String] = [:]
        var oversized = false
        for name in Self.fieldNames {
            guard let value = Self.value(of: name, in: head) else { continue }
            if value.utf8.count <= 4096 { fields[name.canonicalName] = value } else { oversized = true }
        }
        if Self.varyNames(fields["vary"]).count > Self.maxVaryNames { oversized = true }
        self.fields = fields
        isOversized = oversized ? true : nil
        self.responseTime = responseTime.timeIntervalSince1970
        var values: [String: String] = [:]
        for name in Self.varyNames(fields["vary"]) {
            if let value = Self.requestValue(name, of: request) { values[name] = value }
        }
        varyValues = values
    }

    /// Decodes metadata stored by ``encoded``; `nil` for anything else.
    init?(encoded data: Data) {
        guard data.count <= 65_536, let decoded = try? JSONDecoder().decode(HTTPCacheMetadata.self, from: data) else { return nil }
        self = decoded
    }

    /// The bytes stored as extended data.
    var encoded: Data? { try? JSONEncoder().encode(self) }

    /// The validators, for a conditional request.
    var validators: CacheValidators? {
        guard etag != nil || lastModified != nil else { return nil }
        return CacheValidators(etag: etag, lastModified: lastModified)
    }

    /// The most fields a stored response's `Vary` may name.
    static let maxVaryNames = 32

    /// The field names of a `Vary` value, lower-cased (`*` included); one
    /// more than ``maxVaryNames`` at most (enough to tell it is too many).
    static func varyNames(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",").prefix(maxVaryNames + 1).map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
    }

    /// The value `request` sends for the field `name` (a lower-case name from
    /// `Vary`), its repeated fields combined; nil when it sends none or the
    /// name is not a field name.
    static func requestValue(_ name: String, of request: DataRequest) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }

    /// Whether `request` sends the same values of the fields `Vary` named
    /// as the request that filled the entry (RFC 9111 §4.1).
    func matchesVary(_ request: DataRequest) -> Bool {
        let names = Self.varyNames(fields?["vary"])
        if names.contains("*") { return false }
        for name in names where Self.requestValue(name, of: request) != varyValues?[name] {
            return false
        }
        return true
    }

    /// Whether a response with this metadata, to `request`, may be stored by
    /// a cache in `mode` (RFC 9111 §3): not with `no-store`, not with
    /// `Vary: *`, and in a shared cache not when `private` nor when the
    /// request carried `Authorization` without the response allowing it (§3.5).
    func isStorable(mode: HTTPCacheMode, request: DataRequest) -> Bool {
        guard mode != .ignoringHeaders else { return true }
        if isOversized == true { return false }
        let control = CacheControl(fields?["cache-control"] ?? "")
        if control.noStore || Self.varyNames(fields?["vary"]).contains("*") { return false }
        if mode == .shared {
            if control.isPrivate { return false }
            if request.headers.contains(.authorization),
               !(control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil) {
                return false
            }
        }
        return true
    }

    /// Whether a `304 Not Modified` describes the stored response this
    /// metadata belongs to (RFC 9111 §4.3.4), so that it may refresh it.
    /// A strong `ETag` in the 304 must equal the stored one strongly; a weak
    /// one must equal it weakly; with no `ETag`, a `Last-Modified` in the 304
    /// must equal the stored one. A 304 with no validator at all refreshes
    /// the one stored response, as browsers do (origins that forget their
    /// validators on 304s are common). A 304 that names another
    /// representation refreshes nothing: the stored body is not what the
    /// origin now serves, so the caller fetches it whole.
    func isSelected(by head: DataResponseHead) -> Bool {
        // Lines that disagree name no one representation: nothing is refreshed.
        if head.headers.singleton(.eTag) == .conflicting || head.headers.singleton(.lastModified) == .conflicting {
            return false
        }
        if let received = Self.value(of: .eTag, in: head) {
            guard let etag else { return false }
            if Self.isWeak(received) { return Self.opaqueTag(received) == Self.opaqueTag(etag) }
            return !Self.isWeak(etag) && received.trimmingSpaces == etag.trimmingSpaces
        }
        if let received = Self.value(of: .lastModified, in: head), let lastModified {
            return received.trimmingSpaces == lastModified.trimmingSpaces
        }
        return true
    }

    /// Whether an entity tag is weak (`W/"…"`).
    private static func isWeak(_ tag: String) -> Bool { tag.trimmingSpaces.hasPrefix("W/") }

    /// An entity tag without its weakness indicator, for the weak comparison.
    private static func opaqueTag(_ tag: String) -> Substring {
        let trimmed = tag.trimmingSpaces
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }

    /// This metadata updated by a `304 Not Modified` that arrived at
    /// `responseTime` (RFC 9111 §4.3.4): the fields the 304 carries replace
    /// the stored ones, and the entry's age starts again from the 304.
    func refreshed(by head: DataResponseHead, responseTime: Date) -> HTTPCacheMetadata {
        var copy = self
        if let etag = Self.value(of: .eTag, in: head) { copy.etag = etag }
        if let lastModified = Self.value(of: .lastModified, in: head) { copy.lastModified = lastModified }
        var fields = self.fields ?? [:]
        for name in Self.fieldNames {
            if let value = Self.value(of: name, in: head), value.utf8.count <= 4096 { fields[name.canonicalName] = value }
        }
        // An age or date of the old response says nothing about the new one.
        if !head.headers.contains(.age) { fields[HTTPField.Name.age.canonicalName] = nil }
        if !head.headers.contains(.date) { fields[HTTPField.Name.date.canonicalName] = nil }
        copy.fields = fields
        copy.responseTime = responseTime.timeIntervalSince1970
        return copy
    }
}

extension CacheValidators {
    /// Validators with these values.
    init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }
}
