import Foundation

/// How long a stored result may be served, and the `Cache-Control` it is
/// answered with: the original's freshness as the origin gave it, bounded
/// by the operator's `--max-age` (and raised to `--min-max-age`, a floor
/// only an operator sets), fixed when the result is made and counting down
/// from then, in every tier.
struct ResultFreshness: Sendable, Hashable {
    /// Until when shared caches may serve it: this server's tiers, and a
    /// CDN's (`s-maxage` when it differs from `max-age`).
    var sharedExpiry: Date
    /// Until when a client's cache may serve it (`max-age`).
    var clientExpiry: Date
    /// Whether caches must not serve it stale (`must-revalidate`).
    var mustRevalidate: Bool

    /// Whether a shared cache may still serve it at `now`.
    func isFresh(at now: Date) -> Bool { now < sharedExpiry }

    /// `Cache-Control` of an answer at `now`: `public, max-age=N`, with
    /// `s-maxage` when shared caches' remaining lifetime differs, and
    /// `must-revalidate` when the origin said it.
    func cacheControl(at now: Date) -> String {
        let client = Self.seconds(from: now, to: clientExpiry)
        let shared = Self.seconds(from: now, to: sharedExpiry)
        var value = "public, max-age=\(client)"
        if shared != client { value += ", s-maxage=\(shared)" }
        if mustRevalidate { value += ", must-revalidate" }
        return value
    }

    /// Whole seconds from `start` to `end`, rounded, never negative.
    static func seconds(from start: Date, to end: Date) -> Int {
        max(0, Int(end.timeIntervalSince(start).rounded()))
    }

    /// The text a lower tier keeps: the two expiries in Unix seconds and `m`
    /// or `-` for must-revalidate.
    var encoded: String {
        "\(Int(sharedExpiry.timeIntervalSince1970.rounded())) \(Int(clientExpiry.timeIntervalSince1970.rounded())) \(mustRevalidate ? "m" : "-")"
    }

    /// Reads ``encoded``; `nil` when `text` is not that.
    init?(encoded text: some StringProtocol) {
        let parts = text.split(separator: " ")
        guard parts.count == 3, let shared = Int(parts[0]), let client = Int(parts[1]), parts[2] == "m" || parts[2] == "-" else {
            return nil
        }
        sharedExpiry = Date(timeIntervalSince1970: TimeInterval(shared))
        clientExpiry = Date(timeIntervalSince1970: TimeInterval(client))
        mustRevalidate = parts[2] == "m"
    }

    /// Creates a value from its parts.
    init(sharedExpiry: Date, clientExpiry: Date, mustRevalidate: Bool) {
        self.sharedExpiry = sharedExpiry
        self.clientExpiry = clientExpiry
        self.mustRevalidate = mustRevalidate
    }
}
