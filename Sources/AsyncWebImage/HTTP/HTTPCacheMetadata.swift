import Foundation
import HTTPTypes

/// What a cache entry keeps of the response that filled it, stored as the
/// entry's extended data on disk (and in the shared tier) and with the
/// decoded image in memory: the status, the header fields the cache returns
/// with it (``StoredHeaderFields``), the validators, the fields its freshness
/// is computed from, when the request left and the response arrived, and
/// the request's values of the fields its `Vary` names. Freshness is derived
/// from it when read (``HTTPFreshness``), so a `304` merges its header
/// fields in and the entry is fresh again.
///
/// The JSON keeps `etag` and `lastModified` at the top level, where
/// ``CacheValidators`` (and entries written before this type) have them;
/// every member added since is optional, so older entries still decode
/// (as a `200` whose only stored fields are the policy ones).
struct HTTPCacheMetadata: Codable, Hashable, Sendable {
    /// The header fields freshness and `Vary` are computed from; stored
    /// under their lower-case names, whole (never cut by the bound on
    /// ``headers``).
    static let fieldNames: [HTTPField.Name] = [.cacheControl, .expires, .date, .age, .vary]

    /// The value of `name` in `head` as a cache reads it. `Cache-Control`
    /// and `Vary` are lists: their lines combined with ", " (RFC 9110 §5.3).
    /// The others are singletons (``SingletonField``); repeated with
    /// different values, each reads as an invalid value of its own:
    /// - `Expires`: `"0"`, the invalid date RFC 9111 §5.3 names, which
    ///   means already expired (§4.2.1 allows "considered stale");
    /// - `Date`: none, so the response time stands in for it (RFC 9110
    ///   §6.6.1 lets a recipient replace an invalid `Date` with it);
    /// - `Age`: the first line, whose first member counts (RFC 9111 §5.1,
    ///   read by ``HTTPAge``);
    /// - `ETag`, `Last-Modified`: none, so no conditional request names a
    ///   validator the origin may not have meant.
    static func value(of name: HTTPField.Name, in headers: HTTPFields) -> String? {
        if name == .cacheControl || name == .vary { return headers[name] }
        if name == .age { return headers[values: .age].first }
        switch headers.singleton(name) {
        case .absent: return nil
        case .value(let value): return value
        case .conflicting: return name == .expires ? "0" : nil
        }
    }

    /// ``value(of:in:)`` in a response head.
    static func value(of name: HTTPField.Name, in head: HTTPResponseHead) -> String? {
        value(of: name, in: head.headers)
    }

    /// Another stored response to the same URL, with different values of
    /// the fields `Vary` names: where it is, and its entity tag, so that a
    /// conditional request can name it (RFC 9111 §4.3.1). Kept in the
    /// metadata of the URL's primary entry.
    struct Variant: Codable, Hashable, Sendable {
        /// The secondary key (``HTTPVary/secondaryKey(names:headers:)``).
        var secondaryKey: String
        var etag: String
    }

    var etag: String?
    var lastModified: String?
    /// The ``fieldNames`` the response had.
    var fields: [String: String]?
    /// When the response arrived, in seconds since 1970.
    var responseTime: Double?
    /// When the request that got it was sent, in seconds since 1970; nil
    /// in entries written before it was kept (then the response time).
    var requestTime: Double?
    /// The status code; nil in entries written before it was kept (a 200).
    var status: Int?
    /// The stored header fields (``StoredHeaderFields``), as name and value pairs.
    var headers: [[String]]?
    /// For each field `Vary` names (lower-cased), the request's normalised
    /// value (``HTTPVary/normalisedValue(_:of:)``); a name with no value was
    /// absent from the request.
    var varyValues: [String: String]?
    /// Set when the response's policy could not be kept whole (a field over
    /// 4 KiB, a `Vary` naming more than 32 fields): such a response is not
    /// stored, since a cut policy could serve it where it must not be.
    var isOversized: Bool?
    /// The other variants stored for this URL (on its primary entry only).
    var variants: [Variant]?

    /// The metadata of `head`, a response to `request`.
    ///
    /// - Parameters:
    ///   - head: The response head.
    ///   - request: The request as sent.
    ///   - requestTime: When the request was sent; the response time when unknown.
    ///   - responseTime: When the response arrived.
    ///   - mode: The cache's mode (a shared cache keeps no `private="…"` field).
    init(head: HTTPResponseHead, request: DataRequest, requestTime: Date? = nil, responseTime: Date, mode: ImageLoader.HTTPCacheMode = .private) {
        etag = Self.value(of: .eTag, in: head)
        lastModified = Self.value(of: .lastModified, in: head)
        var fields: [String: String] = [:]
        var oversized = false
        for name in Self.fieldNames {
            guard let value = Self.value(of: name, in: head) else { continue }
            if value.utf8.count <= 4096 { fields[name.canonicalName] = value } else { oversized = true }
        }
        let varyNames = HTTPVary.names(fields["vary"])
        if varyNames.count > HTTPVary.maxNames { oversized = true }
        self.fields = fields
        isOversized = oversized ? true : nil
        self.responseTime = responseTime.timeIntervalSince1970
        self.requestTime = (requestTime ?? responseTime).timeIntervalSince1970
        status = head.statusCode
        let control = CacheControl(fields["cache-control"] ?? "")
        headers = Self.encode(StoredHeaderFields(storing: head.headers, control: control, mode: mode))
        varyValues = HTTPVary.values(of: varyNames, in: request.headers)
    }

    /// The metadata of an entry stored without any (``ImageCache/store(_:data:extendedData:forKey:cacheType:coders:waitsForDisk:)``
    /// called directly): no status, validators or freshness.
    init() {}

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

    /// The status code (200 for entries written before it was kept).
    var statusCode: Int { status ?? 200 }

    /// The response's `Cache-Control`.
    var cacheControl: CacheControl { CacheControl(fields?["cache-control"] ?? "") }

    /// The field names the response's `Vary` lists (lower-cased, `*` included).
    var varyNames: [String] { HTTPVary.names(fields?["vary"]) }

    /// The stored header fields; for entries written before they were
    /// kept, the policy fields and validators alone.
    var storedHeaders: StoredHeaderFields {
        if let headers {
            return StoredHeaderFields(stored: headers.compactMap { pair in
                guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
                return HTTPField(name: name, value: pair[1])
            })
        }
        var fields: [HTTPField] = []
        for name in Self.fieldNames {
            if let value = self.fields?[name.canonicalName] { fields.append(HTTPField(name: name, value: value)) }
        }
        if let etag { fields.append(HTTPField(name: .eTag, value: etag)) }
        if let lastModified { fields.append(HTTPField(name: .lastModified, value: lastModified)) }
        return StoredHeaderFields(stored: fields)
    }

    private static func encode(_ stored: StoredHeaderFields) -> [[String]] {
        stored.fields.map { [$0.name.rawName, $0.value] }
    }

    /// Whether `request` sends the same normalised values of the fields
    /// `Vary` named as the request that filled the entry (RFC 9111 §4.1).
    func matchesVary(_ request: DataRequest) -> Bool {
        HTTPVary.matches(names: varyNames, storedValues: varyValues, headers: request.headers)
    }

    /// Whether a response with this metadata, to `request`, may be stored by
    /// a cache in `mode` (RFC 9111 §3). Not when:
    /// - its status is not final, or is `206` or `304` (the loader stores
    ///   whole responses only, and a 304 only refreshes one);
    /// - it says `no-store` — unless it says `must-understand` and the status
    ///   is one whose rules this cache implements (§5.2.2.3); with
    ///   `must-understand` and another status, never;
    /// - its `Vary` is `*` (it can never be selected), or its policy did not fit;
    /// - in a shared cache, it says `private` (unqualified), or the request
    ///   carried `Authorization` (or a credential) and the response says
    ///   neither `public`, `must-revalidate` nor `s-maxage` (§3.5);
    /// - it has none of: `public`; `private` in a private cache; `Expires`;
    ///   `max-age`; `s-maxage` in a shared cache; a heuristically cacheable
    ///   status (`201 Created`, `202 Accepted` with no explicit freshness are
    ///   not stored);
    /// - the request said `no-store` (§5.2.1.5).
    ///
    /// `.ignoringHeaders` stores everything.
    func isStorable(mode: ImageLoader.HTTPCacheMode, request: DataRequest) -> Bool {
        guard mode != .ignoringHeaders else { return true }
        if isOversized == true { return false }
        if RequestCacheControl(request.headers)?.noStore == true { return false }
        let status = statusCode
        guard HTTPStatusCaching.isFinal(status), status != 206, status != 304 else { return false }
        let control = cacheControl
        if control.mustUnderstand {
            guard HTTPStatusCaching.understood.contains(status) else { return false }
        } else if control.noStore {
            return false
        }
        if varyNames.contains("*") { return false }
        let shared = mode.isShared
        if shared {
            if control.isPrivate { return false }
            if request.headers.contains(.authorization) || request.credential != nil,
               !(control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil) {
                return false
            }
        }
        return control.isPublic
            || (control.isPrivate && !shared)
            || fields?["expires"] != nil
            || control.maxAge != nil
            || (shared && control.sharedMaxAge != nil)
            || HTTPStatusCaching.heuristicallyCacheable.contains(status)
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
    func isSelected(by head: HTTPResponseHead) -> Bool {
        // Lines that disagree name no one representation: nothing is refreshed.
        if head.headers.singleton(.eTag) == .conflicting || head.headers.singleton(.lastModified) == .conflicting {
            return false
        }
        if let received = Self.value(of: .eTag, in: head) {
            guard let etag else { return false }
            return EntityTag.matches(received, etag, weakly: EntityTag.isWeak(received))
        }
        if let received = Self.value(of: .lastModified, in: head), let lastModified {
            return received == lastModified
        }
        return true
    }

    /// This metadata updated by a `304 Not Modified` (RFC 9111 §3.2, §4.3.4):
    /// the fields the 304 carries replace the stored ones, and the entry's
    /// age starts again from the 304.
    ///
    /// - Parameters:
    ///   - head: The 304.
    ///   - requestTime: When the conditional request was sent; `responseTime` when unknown.
    ///   - responseTime: When the 304 arrived.
    ///   - mode: The cache's mode.
    func refreshed(by head: HTTPResponseHead, requestTime: Date? = nil, responseTime: Date, mode: ImageLoader.HTTPCacheMode = .private) -> HTTPCacheMetadata {
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
        let control = CacheControl(fields["cache-control"] ?? "")
        var updated = storedHeaders.updated(by: head.headers, control: control, mode: mode)
        if !head.headers.contains(.age) {
            updated = StoredHeaderFields(stored: updated.fields.filter { $0.name != .age })
        }
        copy.headers = Self.encode(updated)
        copy.responseTime = responseTime.timeIntervalSince1970
        copy.requestTime = (requestTime ?? responseTime).timeIntervalSince1970
        return copy
    }
}

extension HTTPCacheMetadata {
    /// The most other variants a primary entry lists.
    static let maxVariants = 8

    /// This metadata (a URL's primary entry) listing `variant` among the
    /// other variants stored: replacing the one under the same key, the
    /// oldest dropped past ``maxVariants``.
    func listing(_ variant: Variant) -> HTTPCacheMetadata {
        var copy = self
        var list = (variants ?? []).filter { $0.secondaryKey != variant.secondaryKey }
        list.append(variant)
        copy.variants = Array(list.suffix(Self.maxVariants))
        return copy
    }

    /// This metadata as the stored response selected for `request` (a
    /// stored variant a `304` chose for a request with other values of the
    /// fields `Vary` names, RFC 9111 §4.3.4): the request's values recorded,
    /// and no list of other variants (only a primary entry has one).
    func selected(for request: DataRequest) -> HTTPCacheMetadata {
        var copy = self
        copy.varyValues = HTTPVary.values(of: varyNames, in: request.headers)
        copy.variants = nil
        return copy
    }

    /// The entity tags of the responses stored for this URL that a
    /// conditional request can name (§4.3.1): this entry's and its listed
    /// variants', each with the secondary key it is stored under (nil: this entry).
    var storedTags: [(secondaryKey: String?, etag: String)] {
        var tags: [(secondaryKey: String?, etag: String)] = []
        if let etag { tags.append((nil, etag)) }
        for variant in variants ?? [] where !tags.contains(where: { $0.etag == variant.etag }) {
            tags.append((variant.secondaryKey, variant.etag))
        }
        return tags
    }
}

extension CacheValidators {
    /// Validators with these values.
    init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }
}
