import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real TLS + HTTP/2 server (`nghttpd`, Debian's nghttp2-server) on
/// 127.0.0.1, serving the files of a temporary directory, started by a test
/// on a free port and stopped by its PID. It speaks HTTP/2 only (ALPN `h2`).
final class NghttpdServer {
    let port: Int
    let documents = TemporaryDirectory("awi-nghttpd")
    private let log = TemporaryDirectory("awi-nghttpd-log")
    private let process: Process

    /// Starts the server with `certificate` (and the certificates' server
    /// key); with `verifyClient`, it requires a client certificate.
    init(certificates: TestCertificates, certificate: String? = nil, verifyClient: Bool = false, files: [String: Data]) async throws {
        for (name, data) in files { try data.write(to: documents.appending(name)) }
        port = try LoopbackPort.freePort()
        process = Process()
        process.executableURL = try Self.executable()
        var arguments = ["-v", "--address=127.0.0.1", "-d", documents.path]
        if verifyClient { arguments.append("--verify-client") }
        arguments += [String(port), certificates.serverKey, certificate ?? certificates.serverCertificate]
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: log.path + "/log", contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log.path + "/log"))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // Bounded: 500 tries 10 ms apart.
        for _ in 0..<500 {
            if Self.accepts(port: port) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "nghttpd did not start on \(port)"])
    }

    deinit { stop() }

    /// `https://127.0.0.1:<port>/<path>`.
    func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)/\(path)")! }

    /// TLS connections the server completed a handshake on, from its `-v` log
    /// (the probe connection made at start-up never handshakes).
    var handshakes: Int {
        let text = (try? String(contentsOfFile: log.path + "/log", encoding: .utf8)) ?? ""
        return text.components(separatedBy: "SSL/TLS handshake completed").count - 1
    }

    /// Streams (requests) the server received headers for, from its `-v` log.
    var requests: Int {
        let text = (try? String(contentsOfFile: log.path + "/log", encoding: .utf8)) ?? ""
        return text.components(separatedBy: "recv HEADERS frame").count - 1
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func executable() throws -> URL {
        for path in ["/usr/sbin/nghttpd", "/usr/bin/nghttpd", "/usr/local/bin/nghttpd"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "nghttpd not installed (scripts/install-deps installs nghttp2-server)"])
    }
}
