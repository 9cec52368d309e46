import Foundation

/// A child process run to its end, what it writes kept in temporary files
/// rather than pipes: draining a pipe would need a thread blocked in
/// read(2), and the cooperative pool has only one per core.
struct ChildProcess {
    /// How the child ended and what it wrote.
    struct Outcome {
        /// The exit status.
        var status: Int32
        /// Standard output (with standard error too when merged).
        var output: String
        /// Standard error, when not merged into ``output``.
        var errors: String
    }

    /// This benchmark's own executable, which children re-run in a child mode.
    static var ownExecutable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// `/usr/bin/env`, to run a tool found on the `PATH`.
    static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// Runs `executable` with `arguments` and waits for it to exit.
    /// - Parameters:
    ///   - mergingErrors: Standard error into the same file as standard
    ///     output (`true` by default); else kept apart in ``Outcome/errors``.
    ///   - environment: The child's environment (`nil`: this process's).
    static func run(
        _ executable: URL, _ arguments: [String], mergingErrors: Bool = true, environment: [String: String]? = nil
    ) async throws -> Outcome {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-child-\(UUID().uuidString)")
        let outURL = base.appendingPathExtension("out")
        let errURL = base.appendingPathExtension("err")
        let files = mergingErrors ? [outURL] : [outURL, errURL]
        for url in files where !FileManager.default.createFile(atPath: url.path, contents: nil) {
            throw BenchmarkFailure("cannot create \(url.path)")
        }
        defer { for url in files { try? FileManager.default.removeItem(at: url) } }
        let output = try FileHandle(forWritingTo: outURL)
        defer { try? output.close() }
        let errors = mergingErrors ? output : try FileHandle(forWritingTo: errURL)
        defer { if !mergingErrors { try? errors.close() } }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
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
        return Outcome(
            status: status,
            output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            errors: mergingErrors ? "" : (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
    }
}
