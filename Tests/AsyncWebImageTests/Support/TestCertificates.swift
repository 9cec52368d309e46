import Foundation

/// A certificate authority, server and client certificates made by `openssl`
/// at test time in a temporary directory (valid for two days; one server
/// certificate expired yesterday), plus a second authority that signed
/// nothing the servers use (a trust store that does not trust them).
final class TestCertificates {
    let directory = TemporaryDirectory("awi-tls")
    /// The authority that signed the server and client certificates.
    var caBundle: String { directory.path + "/ca.pem" }
    /// An authority that signed nothing here.
    var otherCABundle: String { directory.path + "/other-ca.pem" }
    var serverKey: String { directory.path + "/server.key" }
    /// For `localhost` and `127.0.0.1`, valid now.
    var serverCertificate: String { directory.path + "/server.pem" }
    /// The same key and names, expired a day ago.
    var expiredServerCertificate: String { directory.path + "/expired.pem" }
    var clientCertificate: String { directory.path + "/client.pem" }
    var clientKey: String { directory.path + "/client.key" }
    /// The server key's pin in curl's form: `sha256//` + base64 SHA-256 of its SubjectPublicKeyInfo.
    let serverPin: String

    init() throws {
        let script = """
        set -e
        cd '\(directory.path)'
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
        key ca.key; key other-ca.key; key server.key; key client.key
        openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=AWI-Test-CA 2>/dev/null
        openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 2 -subj /CN=AWI-Other-CA 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
        openssl req -new -key server.key -out server.csr -subj /CN=localhost 2>/dev/null
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext 2>/dev/null
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out expired.pem -days -1 -extfile server.ext 2>/dev/null
        openssl req -new -key client.key -out client.csr -subj /CN=awi-client 2>/dev/null
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 2>/dev/null
        openssl pkey -in server.key -pubout -outform DER 2>/dev/null | openssl dgst -sha256 -binary | base64 > server.pin
        """
        try Self.run("/bin/sh", ["-c", script])
        let pin = try String(contentsOfFile: directory.path + "/server.pin", encoding: .utf8)
        serverPin = "sha256//" + pin.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a program to its end; throws when it fails.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) exited \(process.terminationStatus)"])
        }
    }
}
