import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// TLS settings, typed TLS failures and HTTP/2 multiplexing, against a real
/// `nghttpd` with certificates `openssl` makes for each test.
@Suite("TLS and HTTP/2 against nghttpd", .timeLimit(.minutes(2)))
struct CurlTLSTests {
    /// The failure kind of a transfer that fails, nil if it loads.
    private func failureKind(_ transfer: DataRequest.Transfer) async throws -> ImageError.NetworkFailure.Kind? {
        do {
            _ = try await transfer.collect()
            return nil
        } catch ImageError.network(let failure) {
            return failure.kind
        }
    }

    private func loader(_ certificates: TestCertificates, _ change: (inout CurlDataLoader.Configuration) -> Void = { _ in }) -> CurlDataLoader {
        var configuration = CurlDataLoader.Configuration()
        configuration.caBundlePath = certificates.caBundle
        change(&configuration)
        return CurlDataLoader(configuration: configuration)
    }

    @Test("a server whose authority is in the CA bundle loads over HTTP/2 with its bytes")
    func trustedThroughBundle() async throws {
        // Given nghttpd with a certificate our CA signed
        let certificates = try TestCertificates()
        let body = testBytes(100_000, seed: 3)
        let server = try await NghttpdServer(certificates: certificates, files: ["a.bin": body])
        // When a loader that trusts that CA loads a file
        let result = try await loader(certificates).loadData(for: DataRequest(url: server.url("a.bin"))).collect()
        // Then the bytes arrive, over HTTP/2, after a TLS handshake
        #expect(result.body == body)
        #expect(result.head?.statusCode == 200)
        #expect(result.head?.timings?.httpVersion == "2")
        #expect((result.head?.timings?.tlsHandshake ?? .zero) > .zero)
        #expect(server.handshakes == 1)
    }

    @Test("verification is on by default: another authority's bundle → certificateUntrusted; the explicit opt-out loads")
    func untrusted() async throws {
        let certificates = try TestCertificates()
        let server = try await NghttpdServer(certificates: certificates, files: ["a.bin": testBytes(1_000)])
        let loader = loader(certificates) { $0.caBundlePath = certificates.otherCABundle }
        #expect(try await failureKind(loader.loadData(for: DataRequest(url: server.url("a.bin")))) == .certificateUntrusted)
        // The system store does not know our authority either
        #expect(try await failureKind(CurlDataLoader().loadData(for: DataRequest(url: server.url("a.bin")))) == .certificateUntrusted)
        let insecure = DataRequest(url: server.url("a.bin"), allowInvalidSSLCertificates: true)
        #expect(try await loader.loadData(for: insecure).collect().body == testBytes(1_000))
    }

    @Test("an expired certificate fails with certificateExpired")
    func expired() async throws {
        let certificates = try TestCertificates()
        let server = try await NghttpdServer(
            certificates: certificates, certificate: certificates.expiredServerCertificate, files: ["a.bin": testBytes(1_000)]
        )
        #expect(try await failureKind(loader(certificates).loadData(for: DataRequest(url: server.url("a.bin")))) == .certificateExpired)
        // The same chain, valid: trusted (so it is the dates that failed)
        let valid = try await NghttpdServer(certificates: certificates, files: ["a.bin": testBytes(1_000)])
        #expect(try await failureKind(loader(certificates).loadData(for: DataRequest(url: valid.url("a.bin")))) == nil)
    }

    @Test("a wrong pin fails with publicKeyPinMismatch even for a trusted certificate; the right pin loads")
    func pinning() async throws {
        let certificates = try TestCertificates()
        let server = try await NghttpdServer(certificates: certificates, files: ["a.bin": testBytes(2_000, seed: 5)])
        let wrong = loader(certificates) { $0.pinnedPublicKey = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString() }
        #expect(try await failureKind(wrong.loadData(for: DataRequest(url: server.url("a.bin")))) == .publicKeyPinMismatch)
        let right = loader(certificates) { $0.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=;" + certificates.serverPin }
        #expect(try await right.loadData(for: DataRequest(url: server.url("a.bin"))).collect().body == testBytes(2_000, seed: 5))
    }

    @Test("a server requiring a client certificate: none → clientCertificateRejected; the configuration's or the request's → loads")
    func clientCertificates() async throws {
        let certificates = try TestCertificates()
        let body = testBytes(3_000, seed: 9)
        let server = try await NghttpdServer(certificates: certificates, verifyClient: true, files: ["a.bin": body])
        // Without a certificate, several times: the refusal is named each time
        for _ in 0..<3 {
            #expect(try await failureKind(loader(certificates).loadData(for: DataRequest(url: server.url("a.bin")))) == .clientCertificateRejected)
        }
        let certificate = DataRequest.TLSClientCertificate(certificatePath: certificates.clientCertificate, keyPath: certificates.clientKey)
        let configured = loader(certificates) { $0.clientCertificate = certificate }
        #expect(try await configured.loadData(for: DataRequest(url: server.url("a.bin"))).collect().body == body)
        let perRequest = DataRequest(url: server.url("a.bin"), clientCertificate: certificate)
        #expect(try await loader(certificates).loadData(for: perRequest).collect().body == body)
        // A certificate file that is not one fails before the server is involved
        let broken = DataRequest(
            url: server.url("a.bin"), clientCertificate: DataRequest.TLSClientCertificate(certificatePath: certificates.clientKey, keyPath: certificates.clientKey)
        )
        #expect(try await failureKind(loader(certificates).loadData(for: broken)) == .clientCertificateInvalid)
    }

    @Test("minimum TLS 1.3 against a server that offers it loads")
    func minimumVersion() async throws {
        let certificates = try TestCertificates()
        let server = try await NghttpdServer(certificates: certificates, files: ["a.bin": testBytes(500)])
        let loader = loader(certificates) { $0.minimumTLSVersion = .tls1_3 }
        #expect(try await loader.loadData(for: DataRequest(url: server.url("a.bin"))).collect().body == testBytes(500))
    }

    @Test("100 concurrent loads of one host over HTTP/2 share 1 connection (server-side count)")
    func multiplexing() async throws {
        // Given 100 files of 20 KB on nghttpd and a loader allowing 100 transfers at once
        let certificates = try TestCertificates()
        var files: [String: Data] = [:]
        for index in 0..<100 { files["f\(index).bin"] = testBytes(20_000, seed: UInt64(index + 1)) }
        let server = try await NghttpdServer(certificates: certificates, files: files)
        let loader = loader(certificates) { $0.maxConcurrentDownloads = 100 }
        // When all are loaded at once
        let urls = (0..<100).map { server.url("f\($0).bin") }
        let results = try await withThrowingTaskGroup(of: (Int, CollectedTransfer).self) { group in
            for index in 0..<100 {
                let url = urls[index]
                group.addTask { (index, try await loader.loadData(for: DataRequest(url: url)).collect()) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        // Then every body is right, all over HTTP/2, and the server saw one TLS connection carrying 100 requests
        for index in 0..<100 {
            #expect(results[index]?.body == files["f\(index).bin"])
            #expect(results[index]?.head?.timings?.httpVersion == "2")
        }
        #expect(results.values.filter { $0.head?.timings?.reusedConnection == false }.count == 1)
        #expect(server.handshakes == 1)
        #expect(server.requests == 100)
    }

    @Test("HTTP/1.1 fallback: with HTTP/2 allowed, a server without it (the loopback server) answers over 1.1")
    func http1Fallback() async throws {
        let server = try startedServer()
        defer { server.stop() }
        server.route("/x", .init(body: testBytes(4_000, seed: 2)))
        let loader = CurlDataLoader()
        #expect(loader.configuration.allowsHTTP2)
        let result = try await loader.loadData(for: DataRequest(url: server.url("/x"))).collect()
        #expect(result.body == testBytes(4_000, seed: 2))
        #expect(result.head?.timings?.httpVersion == "1.1")
    }
}
