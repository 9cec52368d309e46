import Foundation

/// thumbor 7.8, the thumbnail server's baseline: where it is installed, and
/// where the load test installs it (a venv of its own, from PyPI) when asked.
enum Thumbor {
    /// The load test's work folder, kept beside the generated corpus so the
    /// venv, the server's corpus and the last results survive between runs.
    static var workDirectory: URL {
        URL(fileURLWithPath: CorpusGenerator.defaultDirectory()).deletingLastPathComponent()
            .appendingPathComponent("thumbnail-bench")
    }

    /// The venv's `thumbor`, where the load test installs it.
    static var venvExecutable: URL {
        workDirectory.appendingPathComponent("thumbor-venv/bin/thumbor")
    }

    /// An installed `thumbor`: `THUMBOR` from the environment, the venv, or
    /// one on the `PATH`; `nil` when there is none.
    static func installed() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let path = environment["THUMBOR"], !path.isEmpty { candidates.append(path) }
        candidates.append(venvExecutable.path)
        candidates += (environment["PATH"] ?? "").split(separator: ":").map { $0 + "/thumbor" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }
}
