// swift-tools-version: 6.2
import PackageDescription

/// Settings every Swift target of the package shares.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Zero warnings in our code, on every build. In the manifest rather than
    // `-Xswiftc -warnings-as-errors` on the command line, which would reach
    // the dependencies too and, being a different flag set, need a build
    // folder of its own: with it here, the tests, the documentation and
    // `swift run` share `.build`. SwiftPM ignores warning settings of a
    // remote package, so a dependent's newer compiler cannot fail on ours.
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "AsyncWebImage",
    // The library only. The benchmark and the CLI are executable targets,
    // runnable here with `swift run awi-bench` and `swift run awi`, but not
    // products a dependent could link or would build.
    products: [
        // The core: the pipeline, the caches, curl, JPEG and PNG.
        .library(name: "AsyncWebImage", targets: ["AsyncWebImage"]),
        // Formats beyond the core, one product each so that a dependent links
        // only the C libraries of the formats it registers.
        .library(name: "AsyncWebImageWebP", targets: ["AsyncWebImageWebP"]),
        .library(name: "AsyncWebImageAVIF", targets: ["AsyncWebImageAVIF"]),
        .library(name: "AsyncWebImageHEIF", targets: ["AsyncWebImageHEIF"]),
        .library(name: "AsyncWebImageGIF", targets: ["AsyncWebImageGIF"]),
        .library(name: "AsyncWebImageJXL", targets: ["AsyncWebImageJXL"]),
        .library(name: "AsyncWebImageTIFF", targets: ["AsyncWebImageTIFF"]),
        // BMP and ICO/CUR (an icon is a directory of bitmaps and PNGs), in Swift: no C library.
        .library(name: "AsyncWebImageBMP", targets: ["AsyncWebImageBMP"]),
        .library(name: "AsyncWebImageSVG", targets: ["AsyncWebImageSVG"]),
        // Every format at once (`ImageCoderRegistry.allFormats`), for
        // applications that read whatever the web serves.
        .library(name: "AsyncWebImageAllFormats", targets: ["AsyncWebImageAllFormats"]),
        // The fleet's shared tier on Redis (issue 29): a product of its own,
        // so SwiftNIO and its TLS reach only the users who link it.
        .library(name: "AsyncWebImageRedis", targets: ["AsyncWebImageRedis"]),
    ],
    // swift-collections and the observability packages (swift-log, swift-metrics,
    // swift-distributed-tracing, swift-service-lifecycle) are the library's
    // package dependencies. The others
    // serve only targets no product reaches (the CLI, the benchmark, their tests) and the
    // documentation plugin: with target-based resolution a dependent of the
    // library fetches neither.
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Observability and lifecycle, the Swift server conventions (issue 16).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // HTTPFields: the one header type of requests and responses (issue 11).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The Redis product's RESP client: sockets, event loops, deadlines
        // (issue 29). Only AsyncWebImageRedis depends on it, never the core.
        // Its TLS is the system's OpenSSL (COpenSSL), not swift-nio-ssl:
        // see Sources/AsyncWebImageRedis/RedisTLSHandler.swift for why.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libssl (OpenSSL, the TLS backend of Debian's libcurl4-openssl-dev):
        // the handshake's certificate request, through curl's SSL_CTX callback;
        // and the Redis product's TLS (libssl and libcrypto).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
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
        // libwebp, libwebpdemux and libwebpmux (one Debian package); the
        // modulemap links all three, libwebpmux.pc brings libwebp's flags.
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]
        ),
        .systemLibrary(
            name: "CGif",
            pkgConfig: "libgif",
            providers: [.apt(["libgif-dev"])]
        ),
        // No pkgConfig: libavif.pc's cflags carry -DAVIF_DLL (a Windows
        // dllimport switch), which SwiftPM rejects as a prohibited flag with a
        // warning on every build. Header and library are in the default paths;
        // scripts/install-deps checks `pkg-config --exists libavif`.
        .systemLibrary(
            name: "CAvif",
            providers: [.apt(["libavif-dev"])]
        ),
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // No pkgConfig: libjxl.pc's cflags carry -DHWY_SHARED_DEFINE (for
        // Highway's C++ headers), which SwiftPM rejects as a prohibited flag;
        // the headers and library are in the default paths.
        .systemLibrary(
            name: "CJxl",
            providers: [.apt(["libjxl-dev"])]
        ),
        .systemLibrary(
            name: "CTiff",
            pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]
        ),
        // No pkgConfig: librsvg-2.0.pc's flags carry -pthread, which SwiftPM
        // rejects; shim.h declares the few librsvg and cairo functions used.
        .systemLibrary(
            name: "CRsvg",
            providers: [.apt(["librsvg2-dev"])]
        ),
        // One-call inflate of a PNG's whole image data (PNGInflatedImage) and PNG encoding (PNGDeflateEncoder).
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // Intel ISA-L: row-at-a-time inflate of a PNG thumbnail's image data (see PNGImageDataInflater).
        .systemLibrary(
            name: "CIsal",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        // No pkgConfig: hiredis.pc's cflags carry -D_FILE_OFFSET_BITS=64,
        // which SwiftPM rejects as a prohibited flag with a warning on every
        // build of every dependent. Header and library are in the default
        // paths; scripts/install-deps checks `pkg-config --exists hiredis`.
        .systemLibrary(
            name: "CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        .systemLibrary(
            name: "CLcms2",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]
        ),
        // xxHash: the XXH3 checksum of each disk cache entry's body.
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // libimagequant: the palettes of AnimatedGIFEncoder.
        .systemLibrary(
            name: "CImageQuant",
            pkgConfig: "imagequant",
            providers: [.apt(["libimagequant-dev"])]
        ),
        // <sys/xattr.h>, which Swift's Glibc module leaves out (glibc itself, nothing to link).
        .systemLibrary(name: "CXattr"),
        // <malloc.h>: mallopt, malloc_trim, mallinfo2 (glibc itself, nothing to link).
        .systemLibrary(name: "CMalloc"),
        // Our own C, not a library's: the AVX-512 path of MatrixShaperKernel
        // (the ICC fast path), compiled per function for AVX-512 and chosen
        // at run time, as the package builds for baseline x86-64.
        .target(name: "CMatrixShaper"),
        .target(name: "CResampler"),
        .target(
            name: "AsyncWebImage",
            dependencies: [
                "AWILocking", "CCurl", "COpenSSL", "CTurboJPEG", "CSpng", "CXattr",
                "CDeflate", "CLcms2", "CXXHash", "CMalloc", "CIsal", "CMatrixShaper", "CResampler",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The format products: each a coder (or two) over one C library,
        // registered with a loader's `ImageCoderRegistry`.
        .target(
            name: "AsyncWebImageWebP",
            dependencies: ["AsyncWebImage", "AWILocking", "CWebP"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageAVIF",
            dependencies: ["AsyncWebImage", "CAvif"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageHEIF",
            dependencies: ["AsyncWebImage", "CHeif"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageGIF",
            dependencies: ["AsyncWebImage", "CGif", "CImageQuant"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageJXL",
            dependencies: ["AsyncWebImage", "CJxl"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageTIFF",
            dependencies: ["AsyncWebImage", "CTiff"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageBMP",
            dependencies: ["AsyncWebImage"],
            swiftSettings: swiftSettings
        ),
        // Our own C, not a library's: the SVG product's render workers. Each
        // render runs in a child process its deadline can kill (librsvg 2.54
        // cannot stop a render): this same executable, started again, whose
        // constructor serves renders before `main` — no helper binary, no
        // set-up for an application (see SVGRenderer.swift).
        .target(name: "CSVGRenderProcess"),
        .target(
            name: "AsyncWebImageSVG",
            dependencies: ["AsyncWebImage", "AWILocking", "CRsvg", "CSVGRenderProcess"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AsyncWebImageAllFormats",
            dependencies: [
                "AsyncWebImage", "AsyncWebImageWebP", "AsyncWebImageAVIF", "AsyncWebImageHEIF", "AsyncWebImageGIF",
                "AsyncWebImageJXL", "AsyncWebImageTIFF", "AsyncWebImageBMP", "AsyncWebImageSVG",
            ],
            swiftSettings: swiftSettings
        ),
        // The fleet's shared tier: RedisStore and its RESP client on SwiftNIO
        // (plain TCP, TLS, Unix sockets; independent nodes or Redis Cluster).
        .target(
            name: "AsyncWebImageRedis",
            dependencies: [
                "AsyncWebImage", "AWILocking", "COpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
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
        // The benchmark's results as data (the JSON document, comparisons
        // between runs) and as text and HTML (the report): Foundation only,
        // so its tests build without the benchmark or the library.
        .target(
            name: "AWIBenchResults",
            path: "Benchmarks/awi-bench/Harness/Results",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "awi-bench",
            dependencies: [
                "AsyncWebImage", "AsyncWebImageWebP", "AsyncWebImageAVIF", "AsyncWebImageHEIF", "AsyncWebImageGIF", "AsyncWebImageAllFormats",
                "AsyncWebImageRedis", "AWILocking", "LoopbackServer", "CTurboJPEG", "CSpng", "CCurl", "CWebP", "CAvif", "CHeif", "CXXHash", "CMalloc", "CGif",
                // hiredis: only the shared-tier scenario's baseline (the client the Redis tier had before issue 29).
                "CHiredis",
                "AWIBenchResults",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/awi-bench",
            exclude: ["Harness/Results"],
            swiftSettings: swiftSettings
        ),
        // A second process for the disk store's shared-directory test (test support, not a product).
        .executableTarget(
            name: "awi-cache-stress",
            dependencies: ["AsyncWebImage"],
            path: "Tests/CacheStressHelper",
            swiftSettings: swiftSettings
        ),
        // A fresh process for AllocatorTuningTests: the allocator settings are
        // process-wide and applied once, so each case needs its own process.
        .executableTarget(
            name: "awi-allocator-probe",
            dependencies: ["AsyncWebImage", "CMalloc"],
            path: "Tests/AllocatorProbeHelper",
            swiftSettings: swiftSettings
        ),
        // scripts/conformance's decoder: every coder of AsyncWebImageAllFormats
        // over public conformance files, each result as a PAM file (test support, not a product).
        .executableTarget(
            name: "awi-decode",
            dependencies: ["AsyncWebImage", "AsyncWebImageAVIF", "AsyncWebImageAllFormats"],
            path: "Tests/ConformanceDecoder",
            swiftSettings: swiftSettings
        ),
        // The command-line example: fetch, thumbnail, transform, write.
        .executableTarget(
            name: "awi",
            dependencies: [
                "AsyncWebImage", "AsyncWebImageWebP", "AsyncWebImageAVIF", "AsyncWebImageHEIF", "AsyncWebImageGIF", "AsyncWebImageAllFormats",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/awi",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // Helpers both test targets use (loopback ports, the sanitizer time
        // scale, `eventually`, a recording log handler): no NIO, no codecs.
        .target(
            name: "AWITestSupport",
            dependencies: ["AWILocking", .product(name: "Logging", package: "swift-log")],
            path: "Tests/AWITestSupport",
            swiftSettings: swiftSettings
        ),
        // The library's tests. They link no executable of the package: the
        // `awi` example is run as the binary `swift build --build-tests` (and
        // `swift test`) builds beside the test bundle; the two helper
        // processes under Tests/ (the cache stress writer, the allocator and
        // memory probe) exist for these tests alone.
        .testTarget(
            name: "AsyncWebImageTests",
            dependencies: [
                "AsyncWebImage", "AsyncWebImageWebP", "AsyncWebImageAVIF", "AsyncWebImageHEIF", "AsyncWebImageGIF", "AsyncWebImageAllFormats",
                "AsyncWebImageJXL", "AsyncWebImageTIFF", "AsyncWebImageBMP", "AsyncWebImageSVG",
                "AWILocking", "AWITestSupport", "awi-cache-stress", "LoopbackServer", "CTurboJPEG", "CSpng", "awi-allocator-probe",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        // The benchmark report's tests: the comparison between runs, and the
        // HTML page rendered by headless Chromium from a saved run. No
        // executable and no codec: it builds in seconds.
        .testTarget(
            name: "AWIBenchResultsTests",
            dependencies: ["AWIBenchResults"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        // The Redis product's tests, against real redis-server processes
        // (plain, ACL, TLS, a 6-node Redis Cluster) started on loopback.
        .testTarget(
            name: "AsyncWebImageRedisTests",
            dependencies: [
                "AsyncWebImageRedis", "AsyncWebImage", "AsyncWebImageWebP", "AWILocking", "LoopbackServer", "AWITestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
    ]
)

// The libFuzzer targets (Fuzzing/Sources), declared only when scripts/fuzz
// builds them (AWI_FUZZ=1, into .build-fuzz with the fuzzer and address
// sanitizers), so no other build, dependent or CI run sees them. They live
// in this package because they drive package-internal parts no other
// package can reach: the progressive decoders, the animation frame
// decoders and the resampler.
if Context.environment["AWI_FUZZ"] == "1" {
    let fuzzSettings: [SwiftSetting] = [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
    let fuzzTargets = [
        "FuzzFormatDetect", "FuzzJPEGDecode", "FuzzPNGDecode", "FuzzProgressive", "FuzzWebPDecode", "FuzzGIFDecode",
        "FuzzAVIFDecode", "FuzzHEIFDecode", "FuzzICCProfile", "FuzzAnimatedWebPDecode", "FuzzAPNGDecode", "FuzzGIFAnimation",
        "FuzzJXLDecode", "FuzzTIFFDecode", "FuzzBMPDecode", "FuzzSVGDecode", "FuzzAVIFAnimation",
    ]
    // What the targets share: input checks and the option variants.
    package.targets.append(.target(
        name: "FuzzSupport", dependencies: ["AsyncWebImage"], path: "Fuzzing/Sources/FuzzSupport", swiftSettings: fuzzSettings
    ))
    package.targets += fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport", "AsyncWebImage", "AsyncWebImageWebP", "AsyncWebImageAVIF", "AsyncWebImageHEIF", "AsyncWebImageGIF",
                "AsyncWebImageAllFormats", "AsyncWebImageJXL", "AsyncWebImageTIFF", "AsyncWebImageBMP", "AsyncWebImageSVG",
            ],
            path: "Fuzzing/Sources/\(name)",
            swiftSettings: fuzzSettings
        )
    }
    package.products += fuzzTargets.map { .executable(name: $0, targets: [$0]) }
}
