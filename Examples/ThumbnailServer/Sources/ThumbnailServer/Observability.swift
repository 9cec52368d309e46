import Foundation
import Logging
import Metrics
#if OpenTelemetry
import OTel
#endif
import Prometheus
import ServiceLifecycle
import Tracing

/// The process-wide logging, metrics and tracing, bootstrapped once at
/// start-up: logs on standard error; every swift-metrics metric (the
/// server's, Hummingbird's, the loader's) in a Prometheus registry served at
/// the operator listener's `/metrics`; and with `--otel-endpoint`, the same
/// metrics and every span (Hummingbird's request spans, the loader's
/// `image.*` spans under them) exported over OTLP/HTTP by swift-otel.
struct Observability {
    /// The registry `/metrics` renders.
    let registry: PrometheusCollectorRegistry
    /// The exporters' background services, when exporting: they run in the
    /// service group and flush when it shuts down.
    let services: [any Service]

    /// Bootstraps the logging, metrics and tracing systems.
    ///
    /// - Throws: swift-otel's configuration errors for an endpoint it cannot use.
    static func bootstrap(_ options: ServerOptions) throws -> Observability {
        // Logs on standard error (standard output carries the "listening on"
        // lines), every field escaped: no byte a client sent ends a record.
        LoggingSystem.bootstrap { label in EscapingLogHandler(wrapping: StreamLogHandler.standardError(label: label)) }
        let registry = PrometheusCollectorRegistry()
        let prometheus = PrometheusMetricsFactory(registry: registry)
        #if OpenTelemetry
        if let endpoint = options.otelEndpoint {
            return try exporting(to: endpoint, registry: registry, prometheus: prometheus)
        }
        #endif
        MetricsSystem.bootstrap(prometheus)
        return Observability(registry: registry, services: [])
    }

    #if OpenTelemetry
    /// Bootstraps metrics into both Prometheus and swift-otel's OTLP/HTTP
    /// exporter at `endpoint`, and tracing into swift-otel's.
    private static func exporting(
        to endpoint: String, registry: PrometheusCollectorRegistry, prometheus: PrometheusMetricsFactory
    ) throws -> Observability {
        var diagnostics = Logger(label: "thumbnail-server.otel")
        diagnostics.logLevel = .warning
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        var configuration = OTel.Configuration.default
        configuration.serviceName = "thumbnail-server"
        configuration.diagnosticLogger = .custom(diagnostics)
        configuration.logs.enabled = false
        configuration.traces.otlpExporter.`protocol` = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        configuration.metrics.otlpExporter.`protocol` = .httpProtobuf
        configuration.metrics.otlpExporter.endpoint = base + "/v1/metrics"
        // The OTEL_* variables (export interval, headers…) still apply over these.
        let metrics = try OTel.makeMetricsBackend(configuration: configuration)
        let tracing = try OTel.makeTracingBackend(configuration: configuration)
        MetricsSystem.bootstrap(MultiplexMetricsHandler(factories: [prometheus, metrics.factory]))
        InstrumentationSystem.bootstrap(tracing.factory)
        return Observability(registry: registry, services: [metrics.service, tracing.service])
    }
    #endif
}
