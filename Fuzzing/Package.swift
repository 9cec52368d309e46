// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for AsyncWebImage's decoders. A package of its own, so
// the library's manifest (and CI's normal build) never sees fuzzer flags.
// Build and run them with `scripts/fuzz` (see README.md): every target is
// compiled with `-sanitize=fuzzer,address -parse-as-library`.

/// Settings every target shares: the library's own language mode.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// One executable per fuzz target; each defines `LLVMFuzzerTestOneInput`.
let fuzzTargets = ["FuzzFormatDetect", "FuzzJPEGDecode", "FuzzPNGDecode", "FuzzProgressive", "FuzzWebPDecode", "FuzzGIFDecode", "FuzzAVIFDecode", "FuzzHEIFDecode", "FuzzICCProfile", "FuzzAnimatedWebPDecode", "FuzzAPNGDecode", "FuzzGIFAnimation", "FuzzJXLDecode", "FuzzTIFFDecode", "FuzzBMPDecode", "FuzzSVGDecode", "FuzzAVIFAnimation"]

let package = Package(
    name: "AsyncWebImageFuzzing",
    dependencies: [
        .package(name: "AsyncWebImage", path: ".."),
    ],
    targets: [
        // What the targets share: input checks and the option variants.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "AsyncWebImage", package: "AsyncWebImage")],
            swiftSettings: swiftSettings
        ),
    ] + fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport", .product(name: "AsyncWebImage", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageWebP", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageAVIF", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageHEIF", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageGIF", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageAllFormats", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageJXL", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageTIFF", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageBMP", package: "AsyncWebImage"),
                .product(name: "AsyncWebImageSVG", package: "AsyncWebImage"),
            ],
            swiftSettings: swiftSettings
        )
    }
)
