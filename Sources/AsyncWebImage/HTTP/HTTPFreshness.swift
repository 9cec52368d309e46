import Foundation

/// The freshness of a stored response (RFC 9111 §4.2), derived from its
/// ``HTTPCacheMetadata`` for one cache mode: its freshness lifetime, its age
/// when it arrived, until when it may be served without asking the origin,
/// until when it may be served stale while a revalidation runs
/// (`stale-while-revalidate`) or when the origin fails (`stale-if-error`),
/// and whether it may ever be served stale at all.
///
/// The lifetime (§4.2.1) is the first of: `s-maxage` (shared caches),
/// `max-age`, `Expires` less `Date` (an invalid `Expires` is already
/// expired), and a heuristic (§4.2.2), only for a heuristically cacheable
/// status or a `public` response:
/// - in the image-loader modes (``ImageLoader/HTTPCacheMode/private``,
///   ``ImageLoader/HTTPCacheMode/shared``), the policy's default lifetime
///   (a week unless configured), unless the response says `no-cache` or
///   `must-revalidate` (a shared cache: or `proxy-revalidate`), which ask
///   for a revalidation before every use;
/// - in the strict modes, ``heuristicFraction`` of the time since
///   `Last-Modified`, at most ``maxHeuristicLifetime``. A response with
///   neither explicit freshness nor `Last-Modified` has a lifetime of zero
///   there: it is stored, but never reused without asking the origin (with
///   its validators when it has any, else with a plain request), as every
///   browser and shared cache does.
struct HTTPFreshness: Hashable, Sendable {
    /// The fraction of the time since `Last-Modified` a heuristic lifetime
    /// is (the 10% RFC 9111 §4.2.2 gives as typical).
    static let heuristicFraction = 0.1
    /// The longest heuristic lifetime: a week, the disk store's default age limit.
    static let maxHeuristicLifetime: Double = 7 * 86_400

    /// The freshness lifetime in seconds; nil when headers are ignored.
    let lifetime: Double?
    /// Whether ``lifetime`` is a heuristic one.
    let isHeuristic: Bool
    /// The response's age when it arrived (§4.2.3 `corrected_initial_age`), in seconds.
    let initialAge: Double
    /// When the response arrived.
    let responseTime: Date
    /// Until when the entry is fresh; `nil` when headers are ignored (always
    /// fresh), `.distantPast` when it must be revalidated before every use.
    let freshUntil: Date?
    /// Until when a stale entry may be served while it is revalidated in
    /// the background; `nil` when never.
    let staleWhileRevalidateUntil: Date?
    /// Until when a stale entry may be served when the origin fails
    /// (`stale-if-error`); `nil` when the response gave no such window.
    let staleIfErrorUntil: Date?
    /// `immutable`: not revalidated while fresh, even when asked to refresh.
    let immutable: Bool
    /// Whether the entry may ever be served stale (not with `no-cache`,
    /// `must-revalidate`, nor in a shared cache `proxy-revalidate` or `s-maxage`).
    let mayServeStale: Bool

    /// The freshness of `metadata` under `policy`; `.ignoringHeaders`
    /// gives an entry that is always fresh.
    init(_ metadata: HTTPCacheMetadata, policy: HTTPCachePolicy) {
        let responseTime = Date(timeIntervalSince1970: metadata.responseTime ?? 0)
        self.responseTime = responseTime
        guard policy.followsHeaders else {
            lifetime = nil
            isHeuristic = false
            initialAge = 0
            freshUntil = nil
            staleWhileRevalidateUntil = nil
            staleIfErrorUntil = nil
            immutable = false
            mayServeStale = true
            return
        }
        guard let fields = metadata.fields, metadata.responseTime != nil else {
            // Validators alone (written while headers were ignored): nothing
            // says how long the response is fresh, so it is not.
            lifetime = 0
            isHeuristic = false
            initialAge = 0
            freshUntil = .distantPast
            staleWhileRevalidateUntil = nil
            staleIfErrorUntil = nil
            immutable = false
            mayServeStale = true
            return
        }
        let control = CacheControl(fields["cache-control"] ?? "")
        let shared = policy.mode.isShared
        immutable = control.immutable
        let date = fields["date"].flatMap { HTTPDate.parse($0, now: responseTime) }
        let requestTime = metadata.requestTime.map { Date(timeIntervalSince1970: $0) } ?? responseTime
        initialAge = HTTPAge.initialAge(
            date: date, age: HTTPAge.seconds(fields["age"].map { [$0] } ?? []), requestTime: requestTime, responseTime: responseTime
        )

        var lifetime: Double
        var heuristic = false
        if shared, let sharedMaxAge = control.sharedMaxAge {
            lifetime = Double(sharedMaxAge)
        } else if let maxAge = control.maxAge {
            lifetime = Double(maxAge)
        } else if let expires = fields["expires"] {
            // An Expires that is not a date means "already expired" (§5.3).
            if let expiresDate = HTTPDate.parse(expires, now: responseTime) {
                lifetime = expiresDate.timeIntervalSince(date ?? responseTime)
            } else {
                lifetime = 0
            }
        } else if policy.mode.givesDefaultLifetime {
            // The origin is silent: the loader's own lifetime, as an image
            // loader keeps what it loaded, unless the response asks to be
            // revalidated before each use.
            let revalidatesAlways = control.noCache || control.mustRevalidate || (shared && control.proxyRevalidate)
            if !revalidatesAlways, Self.allowsHeuristic(metadata, control: control) {
                lifetime = policy.defaultLifetime
                heuristic = true
            } else {
                lifetime = 0
            }
        } else if let heuristicLifetime = Self.heuristicLifetime(metadata, control: control, date: date ?? responseTime) {
            lifetime = heuristicLifetime
            heuristic = true
        } else {
            lifetime = 0
        }
        lifetime = max(0, lifetime)
        self.lifetime = lifetime
        isHeuristic = heuristic

        let freshUntil = control.noCache ? Date.distantPast : responseTime.addingTimeInterval(lifetime - initialAge)
        self.freshUntil = freshUntil
        mayServeStale = !control.noCache && !control.mustRevalidate
            && !(shared && (control.proxyRevalidate || control.sharedMaxAge != nil))
        let staleBase = control.noCache ? responseTime.addingTimeInterval(lifetime - initialAge) : freshUntil
        staleWhileRevalidateUntil = mayServeStale ? control.staleWhileRevalidate.map { staleBase.addingTimeInterval(Double($0)) } : nil
        staleIfErrorUntil = mayServeStale ? control.staleIfError.map { staleBase.addingTimeInterval(Double($0)) } : nil
    }

    /// §4.2.2: a fraction of the time from `Last-Modified` to `date`, for a
    /// heuristically cacheable status or a `public` response; nil otherwise.
    private static func heuristicLifetime(_ metadata: HTTPCacheMetadata, control: CacheControl, date: Date) -> Double? {
        guard allowsHeuristic(metadata, control: control),
              let lastModified = metadata.lastModified.flatMap({ HTTPDate.parse($0, now: date) }) else { return nil }
        let interval = date.timeIntervalSince(lastModified)
        guard interval > 0 else { return nil }
        return min(interval * heuristicFraction, maxHeuristicLifetime)
    }

    /// Whether a response may be given a heuristic lifetime at all (§4.2.2):
    /// a heuristically cacheable status, or `public`.
    private static func allowsHeuristic(_ metadata: HTTPCacheMetadata, control: CacheControl) -> Bool {
        HTTPStatusCaching.heuristicallyCacheable.contains(metadata.statusCode) || control.isPublic
    }

    /// The response's age at `now` (§4.2.3 `current_age`), in seconds.
    func currentAge(at now: Date) -> Double {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether the entry may be served at `now` without asking the origin.
    func isFresh(at now: Date) -> Bool {
        guard let freshUntil else { return true }
        return now < freshUntil
    }

    /// Whether a stale entry may be served at `now` while it is revalidated in the background.
    func mayServeWhileRevalidating(at now: Date) -> Bool {
        guard let staleWhileRevalidateUntil else { return false }
        return now < staleWhileRevalidateUntil
    }

    /// Whether a stale entry may be served at `now` in place of the origin's
    /// answer, which failed with `error` (RFC 9111 §4.2.4, RFC 5861 §4).
    ///
    /// Never when the response forbade serving it stale (``mayServeStale``).
    /// Otherwise when the cache is disconnected — the origin's name did not
    /// resolve, no connection could be made, the connection was lost before
    /// the response ended, or the transfer timed out (§4.2.4 allows stale
    /// responses then) — and, within a `stale-if-error` window, also
    /// when the origin answered 500, 502, 503 or 504. An origin that
    /// answers with another status (a 404, a 410) has spoken: its answer stands.
    func mayServeStale(onError error: ImageError, at now: Date) -> Bool {
        guard mayServeStale, freshUntil != nil else { return false }
        switch error {
        case .network(let failure):
            // Not a TLS or certificate failure: serving stale there would
            // hide an attack on the connection.
            return [.cannotResolveHost, .cannotConnect, .connectionLost].contains(failure.kind)
        case .timeout:
            return true
        case .httpStatus(let status) where [500, 502, 503, 504].contains(status):
            guard let staleIfErrorUntil else { return false }
            return now < staleIfErrorUntil
        default:
            return false
        }
    }
}
