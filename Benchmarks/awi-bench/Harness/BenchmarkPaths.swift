import Foundation

/// Where the benchmark's files outside the Swift target are: the Python
/// helpers (`Benchmarks/pyvips`, `Benchmarks/quality`) and the thumbnail
/// server's load test. Found from this file's own path at compile time, so
/// the binary must run on the machine it was built on, from the checkout.
enum BenchmarkPaths {
    /// `Benchmarks/` of the checkout.
    static let benchmarks: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Harness
        .deletingLastPathComponent()  // awi-bench
        .deletingLastPathComponent()  // Benchmarks

    /// The root of the checkout.
    static var repository: URL { benchmarks.deletingLastPathComponent() }
}
