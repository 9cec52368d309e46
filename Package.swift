// swift-tools-version: 6.0
import PackageDescription

/// Settings every Swift target of the package shares.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AsyncWebImage",
    products: [
        .library(name: "AsyncWebImage", targets: ["AsyncWebImage"]),
        .executable(name: "awi-bench", targets: ["awi-bench"]),
        .executable(name: "awi", targets: ["awi"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .systemLibrary(
            name: "CSpng",
            pkgConfig: "spng",
            providers: [.apt(["libspng-dev"])]
        ),
        // <sys/xattr.h>, which Swift's Glibc module leaves out (glibc itself, nothing to link).
        .systemLibrary(name: "CXattr"),
        .target(
            name: "AsyncWebImage",
            dependencies: [
                "AWILocking", "CCurl", "CTurboJPEG", "CSpng", "CXattr",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        // A real HTTP/1.1 server on 127.0.0.1 with programmable faults, shared
        // by the tests and the benchmark. Not a product: it is test support.
        // The package's lock: Synchronization.Mutex, or a pthread mutex
        // ThreadSanitizer can see in the sanitizer build (see Lock.swift).
        .target(
            name: "AWILocking",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LoopbackServer",
            dependencies: ["AWILocking"],
            path: "Sources/LoopbackServer",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "awi-bench",
            dependencies: ["AsyncWebImage", "LoopbackServer", "CTurboJPEG", "CSpng", "CCurl"],
            path: "Benchmarks/awi-bench",
            swiftSettings: swiftSettings
        ),
        // A second process for the disk store's shared-directory test (test support, not a product).
        .executableTarget(
            name: "awi-cache-stress",
            dependencies: ["AsyncWebImage"],
            path: "Tests/CacheStressHelper",
            swiftSettings: swiftSettings
        ),
        // The command-line example: fetch, thumbnail, transform, write.
        .executableTarget(
            name: "awi",
            dependencies: ["AsyncWebImage"],
            path: "Examples/awi",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AsyncWebImageTests",
            dependencies: ["AsyncWebImage", "AWILocking", "awi-cache-stress", "LoopbackServer", "CTurboJPEG", "CSpng"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
    ]
)
