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
    /// The URL list goes through a `--config` file, not the command line,
    /// so 1,000 URLs stay far from ARG_MAX. Waits without blocking a thread of
    /// the cooperative pool.
    static func fetch(_ urls: [URL], parallel: Int, configFile: URL) async throws -> Outcome {
        var config = ""
        for url in urls {
            config += "url = \"\(url.absoluteString)\"\noutput = \"/dev/null\"\n"
        }
        try Data(config.utf8).write(to: configFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "--parallel", "--parallel-max", String(parallel), "--silent", "--show-error",
            "--write-out", "%{http_code} %{size_download}\\n", "--config", configFile.path,
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // Drain both pipes while curl runs so it can never block on a full pipe.
        async let outData = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        async let errData = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }.value
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                // Nothing will write: close our ends so the readers finish.
                try? output.fileHandleForWriting.close()
                try? errors.fileHandleForWriting.close()
                continuation.resume(throwing: error)
            }
        }
        let text = String(decoding: await outData, as: UTF8.self)
        return Outcome(
            lines: text.split(separator: "\n"), exitStatus: status,
            standardError: String(decoding: await errData, as: UTF8.self)
        )
    }
}
