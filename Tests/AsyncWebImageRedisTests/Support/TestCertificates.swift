import Foundation

/// A certificate authority, a server certificate (for `localhost` and
/// `127.0.0.1`) and a client certificate made by `openssl` at test time in a
/// temporary directory (valid for two days), plus a second authority that
/// signed nothing the server uses (a trust store that does not trust it)
/// and a client certificate that authority signed (one the server refuses).
final class TestCertificates {
    let directory: String
    /// The authority that signed the server and client certificates.
    var caBundle: String { directory + "/ca.pem" }
    /// An authority that signed nothing here but ``strangerCertificate``.
    var otherCABundle: String { directory + "/other-ca.pem" }
    var serverKey: String { directory + "/server.key" }
    /// For `localhost` and `127.0.0.1`.
    var serverCertificate: String { directory + "/server.pem" }
    /// For `localhost` only (no IP address entry): a client connecting to
    /// 127.0.0.1 must name `localhost` to accept it.
    var nameOnlyServerCertificate: String { directory + "/server-name-only.pem" }
    var clientCertificate: String { directory + "/client.pem" }
    var clientKey: String { directory + "/client.key" }
    /// A client certificate signed by the other authority (same key as the client's).
    var strangerCertificate: String { directory + "/stranger.pem" }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-redis-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
        set -e
        cd '\(directory)'
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
        key ca.key; key other-ca.key; key server.key; key client.key
        openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=AWI-Redis-Test-CA 2>/dev/null
        openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 2 -subj /CN=AWI-Other-CA 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
        openssl req -new -key server.key -out server.csr -subj /CN=localhost 2>/dev/null
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext 2>/dev/null
        printf 'subjectAltName=DNS:localhost\\n' > name-only.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server-name-only.pem -days 2 -extfile name-only.ext 2>/dev/null
        openssl req -new -key client.key -out client.csr -subj /CN=awi-client 2>/dev/null
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 2>/dev/null
        openssl x509 -req -in client.csr -CA other-ca.pem -CAkey other-ca.key -CAcreateserial -out stranger.pem -days 2 2>/dev/null
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl exited \(process.terminationStatus)"])
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
