import AsyncWebImage
import Foundation
import Logging

/// The server's settings, from command-line flags and the environment.
///
/// Parsed by hand: a dozen flags do not justify a dependency. Every flag
/// `--some-flag VALUE` can also be set as `THUMBNAIL_SOME_FLAG=VALUE` (a bare
/// flag as `THUMBNAIL_SOME_FLAG=1`); the command line wins. Every limit has a
/// default meant for a public-facing server; the tests and benchmarks loosen
/// only what they must (`--allow-loopback`).
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
    /// `Cache-Control: max-age` of thumbnails, in seconds. One day by default.
    var maxAge = 86_400
    /// Memory for encoded responses (the result cache's memory tier), in
    /// MiB; 0 turns that tier off, and so does `--cache-mib 0`. 64 by default.
    var resultCacheMiB = 64
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
    /// Whether the signature `insecure` is accepted (development only).
    /// `false` by default.
    var allowsUnsigned = false

    static let usage = """
    usage: thumbnail-server [options]
    Every flag can also be set in the environment: --max-downloads 4 as
    THUMBNAIL_MAX_DOWNLOADS=4, --allow-loopback as THUMBNAIL_ALLOW_LOOPBACK=1;
    the command line wins.
      --host ADDRESS            address to bind (default 127.0.0.1)
      --port PORT               port to bind, 0 for any free one (default 8080)
      --idle-timeout SECONDS    close a connection without a complete request part
                                (a slowly sent request head too) (default 15)
      --max-connections N       client connections open at once (default 1024)
      --log-level LEVEL         trace, debug, info (a line per request), notice,
                                warning, error, critical (default warning)
      --allow-host HOST         upstream host allowed; repeatable; *.example.com for
                                subdomains (env THUMBNAIL_ALLOW_HOSTS, comma-separated).
                                Without any, every host is allowed.
      --allow-loopback          let upstreams on 127.0.0.0/8 and ::1 through the
                                destination guard (tests and benchmarks)
      --max-redirects N         redirects followed (default 0)
      --timeout SECONDS         upstream connect / stall timeout (default 10)
      --transfer-timeout SECONDS
                                longest upstream transfer in all, 0 for no limit
                                (default 30)
      --max-downloads N         concurrent upstream transfers (default 16)
      --max-input-bytes N       largest upstream body (default 33554432)
      --max-input-pixels N      largest upstream image, in pixels (default 50000000)
      --max-animation-pixels N  largest upstream animation, frames x canvas
                                pixels (default 50000000)
      --max-dimension N         largest width or height asked for (default 4096)
      --max-url-length N        longest request URL on any route (path and
                                query, with the source URL), else 414 (default 8192)
      --heavy-decode-nice N|off nice value (0-19) of the threads decoding images
                                over 20 MP; off decodes them on the cooperative
                                pool holding a CPU permit (default 10)
      --body-budget-mib N       upstream bodies held at once, from download to
                                decoded; past it a request waits before its
                                download (one per CPU permit always goes);
                                0 for no bound (default 2 per CPU permit)
      --cache-mib N             memory for finished thumbnails; 0 disables every
                                cache (default 256)
      --cache-dir DIR           keep originals in DIR/originals and encoded
                                responses in DIR/results
      --max-age SECONDS         Cache-Control max-age (default 86400)
      --result-cache-mib N      memory for encoded responses (default 64; 0, or
                                --cache-mib 0, turns it off)
    \(RedisOptions.usage)
      --result-writes N         result-cache writes (disk, Redis) at once (default 4)
      --result-write-queue N    result-cache writes waiting; beyond, a write is
                                dropped and counted (default 64)
      --allow-unsigned          accept the signature "insecure" on imgproxy-style
                                URLs (development only)
    Signed URLs: THUMBNAIL_KEY and THUMBNAIL_SALT (hex) in the environment
    (or IMGPROXY_KEY and IMGPROXY_SALT). Redis password: THUMBNAIL_REDIS_PASSWORD
    in the environment, or --redis-password-file.
    """

    /// Parses `arguments` (without the program name) over `environment`.
    ///
    /// - Throws: ``UsageError`` for an unknown flag or a bad value; with a
    ///   `nil` message for `--help`.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ServerOptions {
        var options = ServerOptions()
        var hosts: [String] = environment["THUMBNAIL_ALLOW_HOSTS"].map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        } ?? []
        // The environment's settings first, as if given on the command line,
        // so the command line's later flags replace them.
        var fromEnvironment: [String] = []
        for flag in valueFlags {
            if let value = environment[environmentName(of: flag)] { fromEnvironment += [flag, value] }
        }
        for flag in bareFlags {
            if let value = environment[environmentName(of: flag)], ["1", "true", "yes"].contains(value.lowercased()) {
                fromEnvironment.append(flag)
            }
        }
        if environment[environmentName(of: "--log-level")] == nil, let level = environment["LOG_LEVEL"] {
            fromEnvironment = ["--log-level", level] + fromEnvironment
        }
        if let nodes = environment["THUMBNAIL_REDIS"] {
            for node in nodes.split(separator: ",") where !node.trimmingCharacters(in: .whitespaces).isEmpty {
                fromEnvironment += ["--redis", node.trimmingCharacters(in: .whitespaces)]
            }
        }
        try parse(fromEnvironment, into: &options, hosts: &hosts, source: "environment: ")
        try parse(arguments, into: &options, hosts: &hosts, source: "")
        // The password from the environment only when no file gave one.
        if options.redis.password == nil, let password = environment["THUMBNAIL_REDIS_PASSWORD"], !password.isEmpty {
            options.redis.password = password
        }
        try options.redis.validate()
        options.allowedHosts = HostAllowList(patterns: hosts)
        let key = environment["THUMBNAIL_KEY"] ?? environment["IMGPROXY_KEY"]
        let salt = environment["THUMBNAIL_SALT"] ?? environment["IMGPROXY_SALT"]
        if let key {
            guard let signer = URLSigner(keyHex: key, saltHex: salt ?? "") else {
                throw UsageError("THUMBNAIL_KEY and THUMBNAIL_SALT must be hex (and the key not empty)")
            }
            options.signer = signer
        }
        return options
    }

    /// The flags that take a value.
    static let valueFlags = [
        "--host", "--port", "--idle-timeout", "--max-connections", "--log-level", "--max-redirects", "--timeout",
        "--transfer-timeout", "--max-downloads", "--max-input-bytes", "--max-input-pixels", "--max-animation-pixels", "--max-dimension", "--max-url-length",
        "--cache-mib", "--cache-dir", "--max-age", "--result-cache-mib",
        "--result-writes", "--result-write-queue", "--heavy-decode-nice", "--body-budget-mib",
    ] + RedisOptions.valueFlags
    /// The flags without a value.
    static let bareFlags = ["--allow-loopback", "--allow-unsigned"] + RedisOptions.bareFlags

    /// `--max-downloads` → `THUMBNAIL_MAX_DOWNLOADS`.
    static func environmentName(of flag: String) -> String {
        "THUMBNAIL_" + flag.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
    }

    private static func parse(
        _ arguments: [String], into options: inout ServerOptions, hosts: inout [String], source: String
    ) throws(UsageError) {
        var remaining = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(source)\(flag) needs a value") }
            return next
        }
        func number<T: FixedWidthInteger>(_ flag: String, atLeast minimum: T) throws(UsageError) -> T {
            guard let number = T(try value(flag)), number >= minimum else {
                throw UsageError("\(source)\(flag) needs a whole number of at least \(minimum)")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": throw UsageError(nil)
            case "--host": options.host = try value(argument)
            case "--port":
                options.port = try number(argument, atLeast: 0)
                guard options.port <= 65_535 else { throw UsageError("--port must be at most 65535") }
            case "--idle-timeout": options.idleTimeout = .seconds(try number(argument, atLeast: 1) as Int)
            case "--max-connections": options.maxConnections = try number(argument, atLeast: 1)
            case "--log-level":
                let text = try value(argument)
                guard let level = Logger.Level(rawValue: text.lowercased()) else {
                    throw UsageError("\(source)--log-level takes trace, debug, info, notice, warning, error or critical")
                }
                options.logLevel = level
            case "--transfer-timeout":
                let seconds: Int = try number(argument, atLeast: 0)
                options.transferTimeout = seconds == 0 ? nil : .seconds(seconds)
            case "--allow-host": hosts.append(try value(argument))
            case "--allow-loopback": options.allowsLoopback = true
            case "--max-redirects": options.maxRedirects = try number(argument, atLeast: 0)
            case "--timeout": options.timeout = .seconds(try number(argument, atLeast: 1) as Int)
            case "--max-downloads": options.maxConcurrentDownloads = try number(argument, atLeast: 1)
            case "--max-input-bytes": options.maxInputBytes = try number(argument, atLeast: 1)
            case "--max-input-pixels": options.maxInputPixels = try number(argument, atLeast: 1)
            case "--max-animation-pixels": options.maxAnimationPixels = try number(argument, atLeast: 1)
            case "--max-dimension": options.maxOutputDimension = try number(argument, atLeast: 1)
            case "--max-url-length": options.maxURILength = try number(argument, atLeast: 64)
            case "--heavy-decode-nice":
                let text = try value(argument)
                if text == "off" {
                    options.heavyDecodeNice = nil
                } else {
                    guard let nice = Int(text), (0...19).contains(nice) else {
                        throw UsageError("\(source)--heavy-decode-nice takes 0 to 19, or off")
                    }
                    options.heavyDecodeNice = nice
                }
            case "--cache-mib": options.memoryCacheMiB = try number(argument, atLeast: 0)
            case "--body-budget-mib": options.bodyBudgetMiB = try number(argument, atLeast: 0) as Int
            case "--cache-dir": options.cacheDirectory = try value(argument)
            case "--max-age": options.maxAge = try number(argument, atLeast: 0)
            case "--result-cache-mib": options.resultCacheMiB = try number(argument, atLeast: 0)
            case "--allow-unsigned": options.allowsUnsigned = true
            case "--result-writes": options.resultWrites = try number(argument, atLeast: 1)
            case "--result-write-queue": options.resultWriteQueue = try number(argument, atLeast: 0)
            default:
                guard try options.redis.apply(argument, value: { () throws(UsageError) in try value(argument) }, source: source) else {
                    throw UsageError("\(source)unknown argument \(argument)")
                }
            }
        }
    }
}

/// A bad command line; a `nil` message asks for the usage text alone.
struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
