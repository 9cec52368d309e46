import Foundation

/// Decides, from what the origin said (``OriginCacheability``) and the
/// operator's bounds, whether a result is kept by this server's tiers and
/// what `Cache-Control` (and `Vary`) it is answered with: never more
/// permissive than the origin's (imgproxy's Cache-Control pass-through is
/// the model), and never longer than `--max-age`.
///
/// | origin | kept here | answer |
/// |---|---|---|
/// | `no-store` | no | `no-store` |
/// | `private` | no | `private, max-age=` its freshness (or `private, no-cache`) |
/// | `no-cache` | no | `no-cache` |
/// | `Vary: *` | no | as its other directives, with `Vary: *` |
/// | fresh for N s | until then | `public, max-age=N` (and `s-maxage`, `must-revalidate` as given) |
/// | no freshness given | `--max-age` | `public, max-age=` `--max-age` |
///
/// `--min-max-age` raises a shared answer's lifetime to at least that (the
/// operator's explicit choice to serve thumbnails longer than their
/// originals); it never applies to `private`, `no-store` or `no-cache` ones.
struct ThumbnailCachePolicy: Sendable {
    /// The longest lifetime of a result (`--max-age`), and the lifetime when
    /// the origin gives none.
    let maxAge: Int
    /// The shortest lifetime of a shared result (`--min-max-age`); 0 for none.
    let minMaxAge: Int

    /// What to do with a result made now from an original with `origin`.
    enum Decision: Sendable, Equatable {
        /// Keep it in the tiers until `freshness` says, and answer by it.
        case store(ResultFreshness)
        /// Keep it nowhere; answer with `cacheControl` (and `Vary: *` when `variesOnEverything`).
        case doNotStore(cacheControl: String, variesOnEverything: Bool)
    }

    /// The decision for a result made at `now` from an original with `origin`.
    func decision(for origin: OriginCacheability, now: Date) -> Decision {
        if origin.noStore { return .doNotStore(cacheControl: "no-store", variesOnEverything: origin.variesOnEverything) }
        if origin.isPrivate {
            let value = origin.noCache ? "private, no-cache" : "private, max-age=\(remaining(origin.clientLifetime, origin, now, floor: 0))"
            return .doNotStore(cacheControl: value, variesOnEverything: origin.variesOnEverything)
        }
        if origin.noCache { return .doNotStore(cacheControl: "no-cache", variesOnEverything: origin.variesOnEverything) }
        let floor = origin.variesOnEverything ? 0 : minMaxAge
        let freshness = ResultFreshness(
            sharedExpiry: now.addingTimeInterval(TimeInterval(remaining(origin.sharedLifetime, origin, now, floor: floor))),
            clientExpiry: now.addingTimeInterval(TimeInterval(remaining(origin.clientLifetime, origin, now, floor: floor))),
            mustRevalidate: origin.mustRevalidate
        )
        if origin.variesOnEverything {
            return .doNotStore(cacheControl: freshness.cacheControl(at: now), variesOnEverything: true)
        }
        guard freshness.isFresh(at: now) else {
            // Already stale (max-age=0, an Expires in the past): answered, not kept.
            return .doNotStore(cacheControl: freshness.cacheControl(at: now), variesOnEverything: false)
        }
        return .store(freshness)
    }

    /// Seconds left of `lifetime` (counted from the origin's `generated`), or
    /// `--max-age` from now when the origin gave none; at most `--max-age`,
    /// at least `floor`.
    private func remaining(_ lifetime: Int?, _ origin: OriginCacheability, _ now: Date, floor: Int) -> Int {
        guard let lifetime else { return max(floor, maxAge) }
        let left = ResultFreshness.seconds(from: now, to: origin.generated.addingTimeInterval(TimeInterval(lifetime)))
        return max(floor, min(left, maxAge))
    }
}
