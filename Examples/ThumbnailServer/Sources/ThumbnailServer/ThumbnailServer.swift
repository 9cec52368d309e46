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
/// `operator listening on http://HOST:PORT` for the operator listener
/// (`--operator-port`: `/metrics`), and shuts down gracefully on SIGTERM or SIGINT: a `ServiceGroup` stops its
/// services in reverse order — the HTTP server (in-flight requests finish),
/// then the result cache (writes drained, disk thread ended), then the loader
/// (``ImageLoader/Service``: transfers, disk writes, threads, the Redis
/// pool) — and the process exits with status 0.
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
        ImageLoader.AllocatorTuning.default.apply()
        let options: ServerOptions
        do {
            switch try await ServerOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
            case .help:
                FileHandle.standardOutput.write(Data(ServerOptions.helpText.utf8))
                exit(0)
            case .helpMarkdown:
                FileHandle.standardOutput.write(Data(ServerOptions.markdownTable.utf8))
                exit(0)
            case .run(let parsed):
                options = parsed
            }
        } catch {
            fail("\(error.message)\nsee thumbnail-server --help", status: UsageError.exitCode)
        }
        let observability: Observability
        do {
            observability = try Observability.bootstrap(options)
        } catch {
            fail("--otel-endpoint: \(error)", status: UsageError.exitCode)
        }

        var logger = Logger(label: "thumbnail-server")
        logger.logLevel = options.logLevel
        if options.allowedHosts.allowsEveryHost {
            logger.warning("no --allow-host given, every upstream host is allowed (the destination guard still refuses private addresses)")
        }
        if options.signer == nil {
            logger.warning("no THUMBNAIL_KEY: /thumbnail?url=… fetches any allowed URL unsigned (imgproxy-style URLs are refused unless --allow-unsigned)")
        }

        let renderer: ThumbnailRenderer
        do {
            renderer = try ThumbnailRenderer(options: options)
        } catch {
            fail("\(error)", status: UsageError.exitCode)
        }
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
                    fail("\(error)", status: 1)
                case .unreachable, .timedOut, .clusterUnavailable:
                    logger.warning("Redis not reachable at start-up; its lookups are misses until it is", metadata: ["error": "\(error)"])
                }
            }
        }
        var controller = ThumbnailController(
            renderer: renderer,
            maxOutputDimension: options.maxOutputDimension,
            signatures: options.signatures
        )
        controller.showsCacheStatus = options.showsCacheStatus
        // HEAD on every GET route: the GET's status and headers, Content-Length
        // included, without the body, so a CDN or a health check probing with
        // HEAD sees what GET would answer. A HEAD of a result-cache hit
        // decodes nothing, as its GET would not.
        let router = Router(context: ThumbnailRequestContext.self, options: .autoGenerateHeadEndpoints)
        addMiddleware(to: router, options: options, logger: logger)
        controller.addRoutes(to: router)

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = observability.services.map { .init(service: $0) }
        services += [
            .init(service: ImageLoader.Service(loader: renderer.loader)),
            .init(service: ResultCacheService(results: renderer.results)),
            // Memory kept for the next decode goes back when decoding stops.
            .init(service: IdleMemoryRelease(loader: renderer.loader)),
        ]
        if let operatorPort = options.operatorPort {
            let operatorRouter = Router(context: ThumbnailRequestContext.self, options: .autoGenerateHeadEndpoints)
            addMiddleware(to: operatorRouter, options: options, logger: logger)
            OperatorRoutes.add(to: operatorRouter, registry: observability.registry, redis: renderer.redis)
            let operatorApp = Application(
                router: operatorRouter,
                server: .http1(configuration: .init(idleTimeout: .seconds(options.idleTimeout.components.seconds))),
                configuration: .init(address: .hostname(options.operatorHost, port: operatorPort), serverName: "thumbnail-server"),
                onServerRunning: { channel in
                    let port = channel.localAddress?.port ?? operatorPort
                    FileHandle.standardOutput.write(Data("operator listening on http://\(options.operatorHost):\(port)\n".utf8))
                },
                logger: logger
            )
            services.append(.init(service: ListenerService(wrapped: operatorApp, role: "operator", host: options.operatorHost, port: operatorPort)))
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
        services.append(.init(service: ListenerService(wrapped: app, role: "public", host: options.host, port: options.port)))
        // Started in this order, shut down in the reverse one, each after the
        // one before it has returned: the listeners first, the exporters last
        // (so the last spans and metrics are flushed).
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            // Runs until SIGTERM or SIGINT, then shuts down gracefully.
            try await group.run()
            logger.info("shut down")
        } catch {
            fail("\(error)", status: 1)
        }
    }

    /// The middleware of both listeners, in this order: requests counted
    /// and timed by route and status; one access-log line per request at
    /// info; every route's target length checked (414) before it is traced;
    /// one span per request (exported with --otel-endpoint), which records
    /// the target with its secrets replaced.
    private static func addMiddleware(to router: Router<ThumbnailRequestContext>, options: ServerOptions, logger: Logger) {
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: AccessLogMiddleware(logger: logger))
        router.add(middleware: RequestTargetLimitMiddleware(maxLength: options.maxURILength))
        router.add(middleware: SpanTargetRedaction.hide)
        router.add(middleware: TracingMiddleware())
        router.add(middleware: SpanTargetRedaction.restore)
    }

    /// Writes `message` on standard error, its lines kept and anything else
    /// escaped (a Redis reply, a file's name), and exits with `status`.
    private static func fail(_ message: String, status: Int32) -> Never {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(LogText.escaped)
        FileHandle.standardError.write(Data("thumbnail-server: \(lines.joined(separator: "\n"))\n".utf8))
        exit(status)
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
