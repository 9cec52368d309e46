import AsyncWebImage
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import Prometheus

/// `thumbnail-server`: a thumbnail proxy on Hummingbird 2 around one
/// ``ImageLoader``. See README.md beside this package.
///
/// It prints `listening on http://HOST:PORT` on standard output once the
/// socket is bound (with the real port when started with `--port 0`), and
/// shuts down gracefully on SIGTERM or SIGINT: in-flight requests finish,
/// then the process exits with status 0.
@main
struct ThumbnailServer {
    static func main() async {
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

        let controller = ThumbnailController(
            renderer: ThumbnailRenderer(options: options),
            maxOutputDimension: options.maxOutputDimension,
            cacheControl: "public, max-age=\(options.maxAge)",
            signer: options.signer,
            allowsUnsigned: options.allowsUnsigned
        )
        let router = Router(context: ThumbnailRequestContext.self)
        // One line per request at info; requests counted and timed by route
        // and status; one span per request (no cost until a tracer is bootstrapped).
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: MetricsMiddleware())
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
        do {
            // Runs until SIGTERM or SIGINT, then lets in-flight requests finish.
            try await app.runService()
        } catch {
            FileHandle.standardError.write(Data("thumbnail-server: \(error)\n".utf8))
            exit(1)
        }
    }
}
