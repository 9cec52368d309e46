import Foundation

/// The `curl` command-line tool run as a child process: the network
/// baseline, a bare curl transfer loop with no Swift in it.
enum CurlCommand {
    /// What one run of curl reported.
    struct Outcome: Sendable {
        /// One line per transfer, as `--write-out` formatted it.
        var lines: [Substring]
        var exitStatus: Int32
        var standardError: String
    }

    /// Whether a `curl` binary is on the PATH.
    static var isAvailable: Bool {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/curl") }
    }

    /// Fetches `urls` with `curl --parallel --parallel-max <parallel>`,
    /// discarding the bodies and printing `<status> <bytes>` per transfer.
    ///
    /// The URL list goes through a `--config` file, not the command line, so
    /// 1,000 URLs stay far from ARG_MAX. curl's output goes to files rather
    /// than pipes: draining pipes would need threads blocked in read(2), and
    /// the cooperative pool has only one per core.
    /// - Parameter workFile: A path for the config file; `.out`/`.err` files are made beside it.
    /// - Parameter extraArguments: More options, before the URL list (`--http2`, `--cacert`, ...).
    static func fetch(_ urls: [URL], parallel: Int, workFile: URL, extraArguments: [String] = []) async throws -> Outcome {
        var config = ""
        for url in urls {
            config += "url = \"\(url.absoluteString)\"\noutput = \"/dev/null\"\n"
        }
        try Data(config.utf8).write(to: workFile)
        let outURL = workFile.appendingPathExtension("out")
        let errURL = workFile.appendingPathExtension("err")
        for url in [outURL, errURL] {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw BenchmarkFailure("cannot create \(url.path)")
            }
        }
        let output = try FileHandle(forWritingTo: outURL)
        let errors = try FileHandle(forWritingTo: errURL)
        defer {
            try? output.close()
            try? errors.close()
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "--parallel", "--parallel-max", String(parallel), "--silent", "--show-error",
            "--write-out", "%{http_code} %{size_download}\\n",
        ] + extraArguments + ["--config", workFile.path]
        process.standardOutput = output
        process.standardError = errors
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let text = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        return Outcome(
            lines: text.split(separator: "\n"), exitStatus: status,
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
    }
}
