// swift-tools-version: 6.2
// A package that depends on AsyncWebImage's core product alone, as an app
// that reads JPEG and PNG would: CI builds it and checks with `ldd` that its
// binary links none of the format products' or the Redis tier's libraries
// (scripts/check-core-only).
import PackageDescription

let package = Package(
    name: "CoreOnlyDependent",
    platforms: [.macOS(.v15)],
    dependencies: [
        // scripts/check-core-only links .checkout/AsyncWebImage to the repository
        // root: a path dependency is named after its folder.
        .package(path: ".checkout/AsyncWebImage"),
    ],
    targets: [
        .executableTarget(
            name: "CoreOnlyDependent",
            dependencies: [.product(name: "AsyncWebImage", package: "AsyncWebImage")],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
    ]
)
