import AsyncWebImage
import AsyncWebImageRedis
import Foundation
import Logging

extension ServerOptions {
    /// Every setting, in the order `--help` and the README list them.
    static let table: [OptionSpec] = listening + signing + upstreams + limits + caching + operating

    private static let listening: [OptionSpec] = [
        spec("host", .value("ADDRESS"), "127.0.0.1", "address to bind", .listening) { $1.host = try text($0) },
        spec("port", .value("PORT"), "8080", "port to bind, `0` for any free one", .listening) {
            $1.port = try number($0, 0...65_535)
        },
        spec("idleTimeout", .value("SECONDS"), "15", "close a connection without a complete request part (a slowly sent request head too)", .listening) {
            $1.idleTimeout = .seconds(try number($0, 1...86_400))
        },
        spec("maxConnections", .value("N"), "1024", "client connections open at once", .listening) {
            $1.maxConnections = try number($0, 1...1_000_000)
        },
        spec("operatorHost", .value("ADDRESS"), "127.0.0.1", "address of the operator listener (`/metrics`, `/health`)", .listening) {
            $1.operatorHost = try text($0)
        },
        spec("operatorPort", .value("PORT"), "none", "port of the operator listener, `0` for any free one; without it `/metrics` is served nowhere", .listening) {
            $1.operatorPort = try number($0, 0...65_535)
        },
    ]

    private static let signing: [OptionSpec] = [
        spec("key", .value("HEX"), "none", "key of signed URLs, hex (`IMGPROXY_KEY` also works); with it every route that fetches needs a valid signature. Environment or file only", .signing,
             environment: ["THUMBNAIL_KEY", "IMGPROXY_KEY"], onCommandLine: false) { $1.keyHex = try text($0) },
        spec("salt", .value("HEX"), "none", "salt of signed URLs, hex (`IMGPROXY_SALT` also works). Environment or file only", .signing,
             environment: ["THUMBNAIL_SALT", "IMGPROXY_SALT"], onCommandLine: false) { $1.saltHex = try text($0) },
        spec("allowUnsigned", .flag, "off", "development only: accept the signature `insecure` on imgproxy-style URLs, and the query form unsigned", .signing) {
            $1.allowsUnsigned = try flag($0)
        },
        spec("allowUnsignedQuery", .flag, "off", "answer the query form (`/thumbnail?url=…`) without a signature although a key is set; imgproxy-style URLs still need theirs", .signing) {
            $1.allowsUnsignedQuery = try flag($0)
        },
    ]

    private static let upstreams: [OptionSpec] = [
        spec("allowHost", .list("HOST"), "every host", "upstream host allowed, repeatable, `*.example.com` for subdomains", .upstreams,
             environment: ["THUMBNAIL_ALLOW_HOSTS"]) {
            $1.allowedHosts = HostAllowList(patterns: try list($0))
        },
        spec("allowLoopback", .flag, "off", "let upstreams on 127.0.0.0/8 and ::1 through the destination guard (tests, benchmarks)", .upstreams) {
            $1.allowsLoopback = try flag($0)
        },
        spec("maxRedirects", .value("N"), "0", "redirects followed", .upstreams) { $1.maxRedirects = try number($0, 0...20) },
        spec("timeout", .value("SECONDS"), "10", "upstream connect time, and longest stall with nothing received", .upstreams) {
            $1.timeout = .seconds(try number($0, 1...3_600))
        },
        spec("transferTimeout", .value("SECONDS"), "30", "longest upstream transfer in all; `0` for no limit", .upstreams) {
            let seconds = try number($0, 0...86_400)
            $1.transferTimeout = seconds == 0 ? nil : .seconds(seconds)
        },
        spec("maxDownloads", .value("N"), "16", "concurrent upstream transfers", .upstreams) {
            $1.maxConcurrentDownloads = try number($0, 1...10_000)
        },
    ]

    private static let limits: [OptionSpec] = [
        spec("maxInputBytes", .value("N"), "33554432", "largest upstream body", .limits) {
            $1.maxInputBytes = Int64(try number($0, 1...Int(Int32.max)))
        },
        spec("maxInputPixels", .value("N"), "50000000", "largest upstream image, in pixels", .limits) {
            $1.maxInputPixels = try number($0, 1...Int(Int32.max))
        },
        spec("maxAnimationPixels", .value("N"), "50000000", "largest upstream animation, frame count × canvas, checked before any frame of an animated answer is decoded; a still answer decodes only the first frame", .limits) {
            $1.maxAnimationPixels = try number($0, 1...Int(Int32.max))
        },
        spec("maxDimension", .value("N"), "4096", "largest width or height asked for", .limits) {
            $1.maxOutputDimension = try number($0, 1...65_535)
        },
        spec("maxUrlLength", .value("N"), "8192", "longest request URL on any route (path and query, with the source URL); longer is a 414", .limits) {
            $1.maxURILength = try number($0, 64...1_048_576)
        },
        spec("heavyDecodeNice", .value("N|off"), "10", "nice value (0–19) of the threads decoding images over 20 MP, so small requests go first; `off` decodes them on the cooperative pool, holding a CPU permit", .limits) {
            let value = try text($0)
            if value == "off" {
                $1.heavyDecodeNice = nil
            } else {
                guard let nice = Int(value), (0...19).contains(nice) else { throw OptionValueError("0 to 19, or off") }
                $1.heavyDecodeNice = nice
            }
        },
        spec("bodyBudgetMib", .value("N"), "2 per CPU permit", "upstream bodies held at once, from download until decoded and resized; past it a request waits before its download (one per CPU permit always goes); `0` for no bound", .limits) {
            $1.bodyBudgetMiB = try number($0, 0...1_048_576)
        },
    ]

    private static let caching: [OptionSpec] = [
        spec("cacheMib", .value("N"), "256", "memory for decoded thumbnails (pixels, and keys up to a quarter); `0` disables every cache", .caching) {
            $1.memoryCacheMiB = try number($0, 0...1_048_576)
        },
        spec("cacheDir", .value("DIR"), "none", "originals in `DIR/originals`, encoded responses in `DIR/results`", .caching) {
            $1.cacheDirectory = try text($0)
        },
        spec("maxAge", .value("SECONDS"), "86400", "longest a thumbnail is kept and answered fresh: its `max-age` when the origin gives no freshness, the cap of the origin's otherwise", .caching) {
            $1.maxAge = try number($0, 0...315_360_000)
        },
        spec("sourceLifetime", .value("SECONDS"), "604800", "how long a source image whose origin states no freshness (no `max-age`, `s-maxage` or `Expires`) is reused from the caches before it is revalidated; the origin's own headers win", .caching) {
            $1.sourceLifetime = try number($0, 0...315_360_000)
        },
        spec("minMaxAge", .value("SECONDS"), "0", "shortest `max-age` of a thumbnail shared caches may keep, even when its original's freshness is shorter (never for `private`, `no-store` or `no-cache` originals)", .caching) {
            $1.minMaxAge = try number($0, 0...315_360_000)
        },
        spec("resultCacheMib", .value("N"), "64", "memory for encoded responses, keys and bookkeeping counted; `0` (or `--cache-mib 0`) turns it off", .caching) {
            $1.resultCacheMiB = try number($0, 0...1_048_576)
        },
        spec("resultCacheEntries", .value("N"), "65536", "encoded responses kept in memory at most, whatever their bytes", .caching) {
            $1.resultCacheEntries = try number($0, 1...100_000_000)
        },
        spec("redis", .list("HOST:PORT"), "none", "the fleet's Redis, repeatable: `HOST:PORT` or `unix:PATH` (independent nodes share keys by rendezvous hashing; with `--redis-cluster`, the cluster's seeds)", .caching) {
            $1.redis.endpoints = try list($0).map { text throws(OptionValueError) in
                if text.hasPrefix("unix:"), text.count > 5 { return RedisStore.Endpoint(unixSocketPath: String(text.dropFirst(5))) }
                guard let colon = text.lastIndex(of: ":"), colon > text.startIndex,
                      let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else {
                    throw OptionValueError("HOST:PORT or unix:PATH")
                }
                return RedisStore.Endpoint(host: String(text[..<colon]), port: port)
            }
        },
        spec("redisCluster", .flag, "off", "the `--redis` endpoints are seeds of a Redis Cluster (slots from `CLUSTER SHARDS`, `MOVED`/`ASK` followed)", .caching) {
            $1.redis.isCluster = try flag($0)
        },
        spec("redisReplicaReads", .flag, "off", "in a cluster, look values up on the replicas", .caching) {
            $1.redis.readsFromReplicas = try flag($0)
        },
        spec("redisPrefix", .value("PREFIX"), "awi:", "this tenant's key prefix (give each tenant its own, with an ACL user limited to `~PREFIX*`)", .caching) {
            let prefix = try text($0)
            guard !prefix.contains("{"), !prefix.contains("}") else { throw OptionValueError("a prefix without { or }") }
            $1.redis.keyPrefix = prefix
        },
        spec("redisDb", .value("N"), "0", "database number (a cluster has only 0)", .caching) {
            $1.redis.database = try number($0, 0...1_000_000)
        },
        spec("redisUser", .value("NAME"), "none", "ACL user (needs a password)", .caching) { $1.redis.user = try text($0) },
        spec("redisPassword", .value("PASSWORD"), "none", "the Redis password; environment or file only, never logged", .caching,
             onCommandLine: false) { $1.redis.password = try text($0) },
        spec("redisPasswordFile", .value("FILE"), "none", "the Redis password, the first line of FILE", .caching) {
            let path = try text($0)
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8),
                  let line = contents.split(whereSeparator: \.isNewline).first, !line.isEmpty else {
                throw OptionValueError("a readable file whose first line is the password")
            }
            $1.redis.password = String(line)
        },
        spec("redisTls", .flag, "off", "TLS to Redis (implied by the other `--redis-tls-…` settings)", .caching) {
            $1.redis.usesTLS = try flag($0)
        },
        spec("redisTlsCa", .value("FILE"), "the system's", "authorities to trust (PEM)", .caching) {
            $1.redis.caFile = try text($0)
            $1.redis.usesTLS = true
        },
        spec("redisTlsCert", .value("FILE"), "none", "client certificate (PEM), with `--redis-tls-key`", .caching) {
            $1.redis.certificateFile = try text($0)
            $1.redis.usesTLS = true
        },
        spec("redisTlsKey", .value("FILE"), "none", "the client certificate's private key (PEM)", .caching) {
            $1.redis.privateKeyFile = try text($0)
            $1.redis.usesTLS = true
        },
        spec("redisTlsServerName", .value("NAME"), "the host", "the name the server's certificate must carry", .caching) {
            $1.redis.serverName = try text($0)
            $1.redis.usesTLS = true
        },
        spec("redisTimeoutMs", .value("N"), "250", "one Redis command's deadline, connect to reply; past it, a miss (and a strike towards the node's breaker)", .caching) {
            $1.redis.commandTimeout = .milliseconds(try number($0, 1...60_000))
        },
        spec("redisBudgetMs", .value("N"), "250", "the longest a lookup waits before it is a miss", .caching) {
            $1.redis.lookupBudget = .milliseconds(try number($0, 1...60_000))
        },
        spec("resultWrites", .value("N"), "4", "result-cache writes (disk, Redis) running at once", .caching) {
            $1.resultWrites = try number($0, 1...1_024)
        },
        spec("resultWriteQueue", .value("N"), "64", "result-cache writes waiting; past it a write is dropped and counted", .caching) {
            $1.resultWriteQueue = try number($0, 0...1_000_000)
        },
    ]

    private static let operating: [OptionSpec] = openTelemetry + [
        spec("logLevel", .value("LEVEL"), "warning", "`trace`, `debug`, `info` (an access-log line per request), `notice`, `warning`, `error`, `critical`", .observability,
             environment: ["THUMBNAIL_LOG_LEVEL", "LOG_LEVEL"]) {
            guard let level = Logger.Level(rawValue: try text($0).lowercased()) else {
                throw OptionValueError("trace, debug, info, notice, warning, error or critical")
            }
            $1.logLevel = level
        },
        spec("cacheStatusHeader", .flag, "off", "say in `X-Cache` where each answer came from (tells anyone what the server has seen)", .observability) {
            $1.showsCacheStatus = try flag($0)
        },
        spec("config", .value("FILE"), "none", "a JSON file of settings by key (`{\"maxDownloads\": 4, \"allowHost\": [\"a.com\"]}`); flags and the environment win over it", .observability) { _, _ in
            // Read before every other setting (ServerOptions.parse).
        },
    ]

    #if OpenTelemetry
    private static let openTelemetry: [OptionSpec] = [
        spec("otelEndpoint", .value("URL"), "none", "export spans and metrics over OTLP/HTTP to this collector (`http://127.0.0.1:4318`); swift-otel's `OTEL_*` variables apply too", .observability) {
            let value = try text($0)
            guard value.hasPrefix("http://") || value.hasPrefix("https://") else { throw OptionValueError("an http or https URL") }
            $1.otelEndpoint = value
        },
    ]
    #else
    /// Built without the OpenTelemetry trait: no export, so no setting for it.
    private static let openTelemetry: [OptionSpec] = []
    #endif

    /// A table row; the environment variable is `THUMBNAIL_` and the key in
    /// capitals (`maxDownloads` → `THUMBNAIL_MAX_DOWNLOADS`) unless given.
    private static func spec(
        _ key: String, _ kind: OptionSpec.Kind, _ defaultValue: String, _ help: String, _ section: OptionSpec.Section,
        environment: [String]? = nil, onCommandLine: Bool = true,
        apply: @escaping @Sendable (OptionSpec.Value, inout ServerOptions) throws -> Void
    ) -> OptionSpec {
        var name = "THUMBNAIL_"
        for character in key {
            if character.isUppercase { name += "_" }
            name += character.uppercased()
        }
        return OptionSpec(
            key: key, environment: environment ?? [name], kind: kind, defaultValue: defaultValue, help: help, section: section,
            onCommandLine: onCommandLine, apply: apply
        )
    }

    // MARK: Values

    private static func text(_ value: OptionSpec.Value) throws(OptionValueError) -> String {
        guard case .text(let text) = value, !text.isEmpty else { throw OptionValueError("a value") }
        return text
    }

    private static func number(_ value: OptionSpec.Value, _ range: ClosedRange<Int>) throws(OptionValueError) -> Int {
        guard case .text(let text) = value, let number = Int(text), range.contains(number) else {
            throw OptionValueError("a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A switch: on when given bare on the command line; from a variable or
    /// the file, exactly `true` or `false` (or `1`, `0`, `yes`, `no`, as the
    /// environment has always taken), in any case. A number (`-1`, `0.5`, `2`)
    /// is no switch.
    private static func flag(_ value: OptionSpec.Value) throws(OptionValueError) -> Bool {
        switch value {
        case .present:
            return true
        case .text(let text):
            switch text.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw OptionValueError("true or false (or 1, 0, yes, no)")
            }
        case .list:
            throw OptionValueError("true or false (or 1, 0, yes, no)")
        }
    }

    /// Values: a repeated flag or a file's array, or one text of
    /// comma-separated values (a variable, `THUMBNAIL_ALLOW_HOSTS=a.com,b.com`).
    private static func list(_ value: OptionSpec.Value) throws(OptionValueError) -> [String] {
        let values: [String]
        switch value {
        case .list(let given): values = given
        case .text(let text): values = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case .present: throw OptionValueError("values")
        }
        let trimmed = values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !trimmed.isEmpty else { throw OptionValueError("at least one value") }
        return trimmed
    }
}
