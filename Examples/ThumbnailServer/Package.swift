// swift-tools-version: 6.2
import PackageDescription

// A package of its own so that Hummingbird (and SwiftNIO under it) stays out
// of the library's manifest: the library's CI build does not compile them.

/// Settings of our own target: the library's, and warnings as errors.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Zero warnings in our code. Set here rather than with `-Xswiftc` on the
    // command line, which would also apply it to Hummingbird and SwiftNIO
    // (and rebuild them whenever it changes).
    .unsafeFlags(["-warnings-as-errors"]),
]

let package = Package(
    name: "ThumbnailServer",
    platforms: [.macOS(.v14)],
    traits: [
        // On by default. Without it (`--disable-default-traits`) swift-otel and
        // what it brings (async-http-client, BoringSSL, swift-protobuf) are not
        // built and --otel-endpoint does not exist: the smoke test's release
        // build, which does not test the export, saves their compile time.
        .trait(name: "OpenTelemetry", description: "OTLP/HTTP export of spans and metrics (--otel-endpoint), with swift-otel"),
        .default(enabledTraits: ["OpenTelemetry"]),
    ],
    dependencies: [
        // The library, from this repository. Named, because a path
        // dependency's identity is otherwise its folder's name (the clone's).
        .package(name: "AsyncWebImage", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Already under Hummingbird; named because our code imports them.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.9.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        // Prometheus text exposition of what swift-metrics records (GET /metrics).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Runs the server and the loader as services, shut down in order on SIGTERM.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Settings from flags and the environment (Hummingbird reads it
        // too); the command-line provider is a trait. The optional JSON file
        // is read with JSONDecoder, keeping each value's JSON kind.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["CommandLineArguments"]),
        // OpenTelemetry export of the spans and metrics (--otel-endpoint),
        // over OTLP/HTTP only: the gRPC exporter's packages are not built.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .executableTarget(
            name: "thumbnail-server",
            dependencies: [
                .product(name: "AsyncWebImage", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageAllFormats", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageWebP", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageRedis", package: "AsyncWebImage"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "CCrypto",
            ],
            path: "Sources/ThumbnailServer",
            swiftSettings: swiftSettings
        ),
        // OpenSSL's libcrypto (libssl-dev): HMAC-SHA256 of signed URLs.
        .systemLibrary(
            name: "CCrypto",
            path: "Sources/CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Runs the built server as a process against a loopback origin.
        .testTarget(
            name: "ThumbnailServerTests",
            dependencies: [
                "thumbnail-server",
                "CCrypto",
                .product(name: "AsyncWebImage", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageAllFormats", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageWebP", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageRedis", package: "AsyncWebImage"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ThumbnailServerTests",
            // Python helpers the tests run as processes (found by #filePath).
            exclude: ["Support"],
            swiftSettings: swiftSettings
        ),
    ]
)
