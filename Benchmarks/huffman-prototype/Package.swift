// swift-tools-version: 6.0
// Issue 31 item 3: a prototype DC-only (1/8-scale) baseline JPEG entropy decoder,
// measured against libjpeg-turbo. Standalone on purpose: nothing here is part of the
// library until the prototype meets the landing rule (see README.md).
import PackageDescription

let package = Package(
    name: "huffman-prototype",
    targets: [
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .target(
            name: "BaselineDC",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "huffman-proto",
            dependencies: ["BaselineDC", "CTurboJPEG"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
