import Foundation
import Testing
@testable import AsyncWebImage

/// Client certificates and credentials are part of the request identity.
@Suite("ImageRequestKeys: client certificates and credentials")
struct ImageRequestKeysCredentialTests {
    let url = URL(string: "https://example.com/a.png")!

    private func keys(_ request: DataRequest) -> ImageRequestKeys {
        ImageRequestKeys(url: url, filter: nil, variant: request.key.variant, decodingSuffix: "", transformer: nil)
    }

    @Test("two client certificates, or one key under two pass phrases, never share keys; nothing secret is printed")
    func certificatesSplit() {
        let a = DataRequest.TLSClientCertificate(certificatePath: "/certs/a.pem", keyPath: "/certs/a.key", keyPassword: "pass-one")
        var b = a
        b.certificatePath = "/certs/b.pem"
        var c = a
        c.keyPassword = "pass-two"
        let requests = [DataRequest(url: url), DataRequest(url: url, clientCertificate: a),
                        DataRequest(url: url, clientCertificate: b), DataRequest(url: url, clientCertificate: c)]
        #expect(Set(requests.map { keys($0).dataKey }).count == 4)
        #expect(Set(requests.map(\.key)).count == 4)
        for request in requests {
            #expect(!request.key.description.contains("pass-"))
            #expect(!keys(request).dataKey.contains("pass-"))
        }
    }

    @Test("basic, digest and bearer credentials each make another identity; tokens never appear in keys or descriptions")
    func credentialsSplit() {
        let credentials: [DataRequest.Credential?] = [
            nil, .basic(user: "u", password: "secret-1"), .basic(user: "u", password: "secret-2"),
            .digest(user: "u", password: "secret-1"), .bearer("secret-token"),
        ]
        let requests = credentials.map { DataRequest(url: url, credential: $0) }
        #expect(Set(requests.map { keys($0).dataKey }).count == credentials.count)
        #expect(Set(requests.map(\.key)).count == credentials.count)
        for request in requests {
            #expect(!request.key.description.contains("secret"))
            #expect(!keys(request).dataKey.contains("secret"))
        }
    }

    @Test("an ImageLoader stamps its CurlDataLoader's client certificate on requests, so two loaders sharing a cache keep apart")
    func loaderCertificateStamped() async throws {
        var curl = CurlDataLoader.Configuration()
        curl.clientCertificate = DataRequest.TLSClientCertificate(certificatePath: "/certs/a.pem")
        var configuration = ImageLoader.Configuration()
        configuration.dataLoader = CurlDataLoader(configuration: curl)
        let withCertificate = ImageLoader(configuration: configuration)
        let plain = ImageLoader()
        let a = try await withCertificate.makeRequest(url, options: [], context: ImageContext())
        let b = try await plain.makeRequest(url, options: [], context: ImageContext())
        #expect(a.dataRequest.clientCertificate == curl.clientCertificate)
        #expect(b.dataRequest.clientCertificate == nil)
        #expect(a.keys.dataKey != b.keys.dataKey)
        // A per-call data loader's certificate wins over the configuration's
        var context = ImageContext()
        context.dataLoader = CurlDataLoader()
        #expect(try await withCertificate.makeRequest(url, options: [], context: context).dataRequest.clientCertificate == nil)
    }
}
