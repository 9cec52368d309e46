import AsyncWebImage
import AsyncWebImageRedis
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

/// The operator's routes, on a listener of their own (`--operator-port`)
/// so the public one does not tell anyone what the server has seen:
/// `GET /metrics` (Prometheus text, format 0.0.4) and `GET /health`.
enum OperatorRoutes {
    /// Adds the routes to `router`.
    static func add(to router: Router<ThumbnailRequestContext>, registry: PrometheusCollectorRegistry, redis: RedisStore?) {
        router.get("health") { _, _ in "ok\n" }
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
    }
}
