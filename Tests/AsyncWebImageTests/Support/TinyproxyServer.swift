import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `tinyproxy` on 127.0.0.1, started by a test on a free port (with
/// Basic authentication when given credentials) and stopped by its PID.
final class TinyproxyServer {
    let port: Int
    private let directory = TemporaryDirectory("awi-tinyproxy")
    private let process: Process

    /// `http://127.0.0.1:<port>`.
    var url: String { "http://127.0.0.1:\(port)" }

    init(user: String? = nil, password: String? = nil) async throws {
        port = try LoopbackPort.freePort()
        var configuration = """
        Port \(port)
        Listen 127.0.0.1
        Timeout 30
        MaxClients 64
        Allow 127.0.0.1
        LogLevel Info
        LogFile "\(directory.path)/log"

        """
        if let user, let password { configuration += "BasicAuth \(user) \(password)\n" }
        let configurationPath = directory.path + "/tinyproxy.conf"
        try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = try Self.executable()
        process.arguments = ["-d", "-c", configurationPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Bounded: 500 tries 10 ms apart.
        for _ in 0..<500 {
            if NghttpdServer.accepts(port: port) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "tinyproxy did not start on \(port)"])
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func executable() throws -> URL {
        for path in ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "tinyproxy not installed (scripts/install-deps installs it)"])
    }
}
