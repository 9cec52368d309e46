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
    /// - Parameter workFile: A path for the config file.
    /// - Parameter extraArguments: More options, before the URL list (`--http2`, `--cacert`, ...).
    static func fetch(_ urls: [URL], parallel: Int, workFile: URL, extraArguments: [String] = []) async throws -> Outcome {
        var config = ""
        for url in urls {
            config += "url = \"\(url.absoluteString)\"\noutput = \"/dev/null\"\n"
        }
        try Data(config.utf8).write(to: workFile)
        let outcome = try await ChildProcess.run(ChildProcess.env, [
            "curl", "--parallel", "--parallel-max", String(parallel), "--silent", "--show-error",
            "--write-out", "%{http_code} %{size_download}\\n",
        ] + extraArguments + ["--config", workFile.path], mergingErrors: false)
        return Outcome(lines: outcome.output.split(separator: "\n"), exitStatus: outcome.status, standardError: outcome.errors)
    }
}
