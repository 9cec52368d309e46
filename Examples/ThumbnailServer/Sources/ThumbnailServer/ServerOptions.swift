import AsyncWebImage
import Foundation
import Logging

/// The server's settings, from command-line flags, the environment and an
/// optional JSON configuration file (swift-configuration's providers), in
/// that order of precedence; see ``table`` for every one and
/// ``parse(_:environment:)``.
///
/// Every limit has a default meant for a public-facing server; the tests
/// and benchmarks loosen only what they must (`--allow-loopback`).
struct ServerOptions: Sendable {
    // MARK: Listening

    /// The address to bind. `127.0.0.1` by default.
    var host = "127.0.0.1"
    /// The port to bind; `0` picks a free one. `8080` by default.
    var port = 8080
    /// How long a connection may go without a complete request part (its
    /// request head included) before it is closed; also bounds clients that
    /// send their header lines slowly. 15 s by default.
    var idleTimeout: Duration = .seconds(15)
    /// The most client connections open at once; past it the server stops
    /// accepting until one closes. 1024 by default.
    var maxConnections = 1024
    /// What is logged: `trace` … `critical`. `warning` by default; `info`
    /// logs one line per request.
    var logLevel: Logger.Level = .warning
    /// The operator listener's address (`/metrics`, `/health`). `127.0.0.1` by default.
    var operatorHost = "127.0.0.1"
    /// The operator listener's port, `0` for a free one; `nil` (the default)
    /// for no operator listener: `/metrics` is then served nowhere.
    var operatorPort: Int?
    /// Whether answers say where they came from in `X-Cache` (which tells
    /// anyone what the server has seen). `false` by default.
    var showsCacheStatus = false
    /// Where spans and metrics are exported over OTLP/HTTP
    /// (`http://collector:4318`); `nil` (the default) for no export.
    var otelEndpoint: String?

    // MARK: Upstreams

    /// Hosts thumbnails may be made from (`example.com`, `*.example.com`).
    /// Empty (the default) allows every host; the destination guard still
    /// refuses private addresses.
    var allowedHosts = HostAllowList(patterns: [])
    /// Whether upstreams on loopback addresses may be reached (tests and
    /// benchmarks only). `false` by default.
    var allowsLoopback = false
    /// Redirects followed for one upstream. `0` by default: a redirect could
    /// lead off the host allow-list, which is checked on the requested URL.
    var maxRedirects = 0
    /// How long connecting, or a stalled transfer (nothing received), may
    /// take. 10 s by default.
    var timeout: Duration = .seconds(10)
    /// The longest one upstream transfer may take in all, however steadily
    /// bytes arrive (a 1 byte/s upstream never stalls); `nil` for no limit.
    /// 30 s by default.
    var transferTimeout: Duration? = .seconds(30)
    /// The most upstream transfers at once. 16 by default.
    var maxConcurrentDownloads = 16

    // MARK: Limits

    /// The most bytes an upstream body may have. 32 MiB by default.
    var maxInputBytes: Int64 = 32 * 1024 * 1024
    /// The most pixels an upstream image header may declare. 50 MP by default.
    var maxInputPixels = 50_000_000
    /// The most pixels an upstream animation may hold over all its frames
    /// (frame count × canvas), checked before any frame is decoded. Each
    /// frame is a full canvas to composite and resize whatever the file's
    /// size, so this bounds the work of one animated answer. 50 MP by
    /// default, as `maxInputPixels`: imgproxy sums an animation's frames
    /// against its source resolution limit the same way (385 frames of
    /// 480×270). Measured in a release build: a 23 KB GIF of 1,000
    /// one-pixel frames on a 1000×1000 canvas cost 1.4 s of CPU as an
    /// animated WebP answer, 200 such frames 0.28 s, a 9 MP JPEG 0.02 s.
    var maxAnimationPixels = 50_000_000
    /// The longest request target (path and query, as sent, which carry the
    /// source URL) of any request, on every route; longer ones are a 414. 8192
    /// bytes by default, imgproxy's order of magnitude and what common
    /// proxies and CDNs pass.
    var maxURILength = 8192
    /// The largest width or height a request may ask for. 4096 by default.
    var maxOutputDimension = 4096
    /// The nice value of the threads that decode images over 20 MP (the CPU
    /// limiter's heavy work), or `nil` to decode them on the cooperative
    /// pool, each holding a CPU permit. 10 by default.
    var heavyDecodeNice: Int? = 10
    /// The most MiB of upstream bodies held at once, from download to the
    /// end of their decode and resize (the loader's `bodyBudgetBytes`); a
    /// request past it waits before its download (one request per CPU
    /// permit always proceeds). 0 for no bound; `nil` (the default) for 2
    /// MiB per CPU permit: measured on the progressive JPEG load pinned to
    /// one core, bodies waiting for a permit no longer grow with the
    /// requests in flight (peak RSS 192–221 MiB unbounded, 180 at 1 MiB).
    var bodyBudgetMiB: Int?

    // MARK: Caching

    /// Memory for finished thumbnails (decoded pixels), in MiB; 0 turns every
    /// cache off, so each request does the whole work. 256 by default.
    var memoryCacheMiB = 256
    /// A directory for the original upstream bytes (`DIR/originals`) and the
    /// encoded responses (`DIR/results`), or `nil` (the default) for none.
    var cacheDirectory: String?
    /// The longest a thumbnail is kept and answered fresh, in seconds: its
    /// `Cache-Control: max-age` when the origin gives no freshness, and the
    /// cap of the origin's otherwise. One day by default.
    var maxAge = 86_400
    /// How long a source image whose origin states no freshness (no
    /// `max-age`, `s-maxage` or `Expires`) is reused from the loader's tiers
    /// before it is revalidated, in seconds: the loader's
    /// `defaultFreshnessLifetime`. A week by default; the origin's own
    /// headers (`no-store`, `no-cache`, `max-age`, `private`…) win.
    var sourceLifetime = 604_800
    /// The shortest `max-age` of a thumbnail a shared cache may keep, in
    /// seconds, even when its original's freshness is shorter: the
    /// operator's explicit choice; never for `private`, `no-store` or
    /// `no-cache` originals. 0 (none) by default.
    var minMaxAge = 0
    /// Memory for encoded responses (the result cache's memory tier), in
    /// MiB; 0 turns that tier off, and so does `--cache-mib 0`. 64 by default.
    var resultCacheMiB = 64
    /// The most encoded responses kept in memory, whatever their bytes. 65,536 by default.
    var resultCacheEntries = 65_536
    /// The fleet's Redis (`--redis …`): originals and encoded responses
    /// shared by every server, one origin fetch per image across them; its
    /// nodes or cluster, this tenant's prefix, database, credentials and
    /// TLS. No Redis by default.
    var redis = RedisOptions()
    /// The most result-cache writes (disk, Redis) running at once. 4 by default.
    var resultWrites = 4
    /// The most result-cache writes waiting for one of those; more are
    /// dropped (a later miss) and counted. 64 by default.
    var resultWriteQueue = 64

    // MARK: Signed URLs

    /// Verifies imgproxy-style signatures; from `THUMBNAIL_KEY` and
    /// `THUMBNAIL_SALT` (hex; `IMGPROXY_KEY` and `IMGPROXY_SALT` also
    /// work), from the environment only, so the secret is not on a command
    /// line other users can list. `nil` when no key is set: then every
    /// imgproxy-style request is refused unless unsigned ones are allowed.
    var signer: URLSigner?
    /// The key as given (hex), before ``signer`` is made from it and ``saltHex``.
    var keyHex: String?
    /// The salt as given (hex); empty by default.
    var saltHex = ""
    /// Whether the signature `insecure` is accepted, and the query form
    /// answered unsigned (development only). `false` by default.
    var allowsUnsigned = false
    /// Whether the query form is answered without a signature when a key is
    /// set (imgproxy-style paths still need theirs). `false` by default.
    var allowsUnsignedQuery = false

    /// The signing rules these settings make.
    var signatures: SignaturePolicy {
        SignaturePolicy(signer: signer, allowsUnsigned: allowsUnsigned, allowsUnsignedQuery: allowsUnsignedQuery)
    }
}
