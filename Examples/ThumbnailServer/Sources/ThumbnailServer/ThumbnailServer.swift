import AsyncWebImage
import AsyncWebImageRedis
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `thumbnail-server`: a thumbnail proxy on Hummingbird 2 around one
/// ``ImageLoader``. See README.md beside this package.
///
/// It prints `listening on http://HOST:PORT` on standard output once the
/// socket is bound (with the real port when started with `--port 0`), and
/// shuts down gracefully on SIGTERM or SIGINT: a `ServiceGroup` stops its
/// services in reverse order — the HTTP server (in-flight requests finish),
/// then the result cache (writes drained, disk thread ended), then the loader
/// (``ImageLoaderService``: transfers, disk writes, threads, the Redis
/// connections) — and the process exits with status 0.
@main
struct ThumbnailServer {
    static func main() async {
        // The allocator's tuning before any other thread allocates (this
        // body runs on the main thread, before the runtime, NIO or curl
        // start theirs). Applied when the loader is created, it came too
        // late: threads that had allocated by then kept arenas of their
        // own, which later threads share too (measured on the progressive
        // JPEG load: three extra arenas, 122 of 275 MiB resident, beside
        // the main heap's 105), and whose 64 MiB heaps do not keep freed
        // decode buffers for the next decode.
        AllocatorTuning.default.apply()
        let options: ServerOptions
        do {
            options = try ServerOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            if let message = error.message { FileHandle.standardError.write(Data("thumbnail-server: \(message)\n".utf8)) }
            print(ServerOptions.usage)
            exit(error.message == nil ? 0 : 2)
        }
        // Logs on standard error: standard output carries the "listening on" line.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        // Every swift-metrics metric (Hummingbird's request counters and
        // timers) lands in this registry, served as Prometheus text at /metrics.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        var logger = Logger(label: "thumbnail-server")
        logger.logLevel = options.logLevel
        if options.allowedHosts.allowsEveryHost {
            logger.warning("no --allow-host given, every upstream host is allowed (the destination guard still refuses private addresses)")
        }

        let renderer = ThumbnailRenderer(options: options)
        if let redis = renderer.redis {
            // A wrong password, certificate or database is a configuration
            // error: refuse to start rather than run with a tier that only
            // misses. A Redis that is down or slow is not: it may come back,
            // and meanwhile its lookups are misses within the budget.
            do {
                try await redis.checkConnection()
            } catch {
                switch error {
                case .authenticationFailed, .tlsFailed, .refused, .protocolViolation:
                    FileHandle.standardError.write(Data("thumbnail-server: \(error)\n".utf8))
                    exit(1)
                case .unreachable, .timedOut, .clusterUnavailable:
                    logger.warning("Redis not reachable at start-up; its lookups are misses until it is", metadata: ["error": "\(error)"])
                }
            }
        }
        let controller = ThumbnailController(
            renderer: renderer,
            maxOutputDimension: options.maxOutputDimension,
            cacheControl: "public, max-age=\(options.maxAge)",
            signer: options.signer,
            allowsUnsigned: options.allowsUnsigned
        )
        // HEAD on every GET route (thumbnails, /health, /metrics): the GET's
        // status and headers, Content-Length included, without the body, so a
        // CDN or a health check probing with HEAD sees what GET would answer.
        // A HEAD of a result-cache hit decodes nothing, as its GET would not.
        let router = Router(context: ThumbnailRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Requests counted and timed by route and status; every route's
        // target length checked (414) before it is logged or traced; one
        // line per request at info; one span per request (no cost until a
        // tracer is bootstrapped).
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: RequestTargetLimitMiddleware(maxLength: options.maxURILength))
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: TracingMiddleware())
        controller.addRoutes(to: router)
        let redis = controller.renderer.redis
        router.get("metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            var buffer = ByteBuffer(bytes: registry.emitToBuffer())
            if let redis {
                // The fleet tier's own counters, read when scraped.
                let statistics = redis.statistics
                for (name, value) in [
                    ("hits", statistics.hits), ("misses", statistics.misses), ("failures", statistics.failures),
                    ("skipped_by_breaker", statistics.skippedByBreaker), ("writes", statistics.writes),
                    ("failed_writes", statistics.failedWrites), ("oversized", statistics.oversized),
                    ("timeouts", statistics.timeouts), ("oversized_reads", statistics.oversizedReads),
                    ("breaker_openings", statistics.breakerOpenings), ("redirections", statistics.redirections),
                    ("topology_refreshes", statistics.topologyRefreshes),
                ] {
                    buffer.writeString("# TYPE thumbnail_redis_\(name)_total counter\nthumbnail_redis_\(name)_total \(value)\n")
                }
            }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
        }

        let app = Application(
            router: router,
            // The idle timeout also closes connections whose request head
            // never completes (Hummingbird counts idleness from the last
            // complete request part, not the last byte).
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ClientDisconnectHandler()],
                idleTimeout: .seconds(options.idleTimeout.components.seconds)
            )),
            configuration: .init(
                address: .hostname(options.host, port: options.port),
                serverName: "thumbnail-server",
                availableConnectionsDelegate: MaximumAvailableConnections(options.maxConnections, logger: logger)
            ),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                // Scripts read this line to find a port picked with --port 0;
                // written unbuffered, so a pipe sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(options.host):\(port)\n".utf8))
            },
            logger: logger
        )
        // Started in this order, shut down in the reverse one, each after
        // the one before it has returned.
        let group = ServiceGroup(configuration: .init(
            services: [
                .init(service: ImageLoaderService(loader: renderer.loader)),
                .init(service: ResultCacheService(results: renderer.results)),
                // Memory kept for the next decode goes back when decoding stops.
                .init(service: IdleMemoryRelease(limiter: renderer.cpuLimiter, busy: { [loader = renderer.loader] in loader.loadsHoldingBodies > 0 })),
                .init(service: app),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        do {
            // Runs until SIGTERM or SIGINT, then shuts down gracefully.
            try await group.run()
            logger.info("shut down")
        } catch {
            FileHandle.standardError.write(Data("thumbnail-server: \(error)\n".utf8))
            exit(1)
        }
    }
}

/// Shuts the result cache down at graceful shutdown: after the HTTP server
/// (no new write comes), its background writes drain and its disk tier's
/// thread ends; before the loader's shutdown, which closes the Redis those
/// writes may go to.
struct ResultCacheService: Service {
    let results: ResultCache

    func run() async throws {
        // Returns on graceful shutdown; throws when the group is cancelled,
        // and the writes are waited for either way (each bounded by its tier's timeouts).
        try? await gracefulShutdown()
        await results.shutdown()
    }
}
