import AsyncWebImage
import Foundation
import Testing
@testable import thumbnail_server

/// With a key set, every route that fetches needs a valid signature, spelled
/// one way only; unknown paths are 404s. Against a real server process (the
/// harness always sets THUMBNAIL_KEY) and a loopback origin that counts
/// what it was asked.
@Suite(.serialized)
struct SignedRoutesTests {
    static func query(_ origin: String) -> String {
        "/thumbnail?url=\(origin)/photo.jpg&width=64&height=64"
    }

    @Test("key set: the unsigned query form is a 403 and the origin is never asked; signed last it is a 200")
    func queryFormNeedsASignature() throws {
        // Given a server with a key and no flag waiving signatures
        let harness = try ImgproxyInterfaceTests.started([])
        let target = Self.query(harness.origin)

        // When the query form comes unsigned, with a wrong signature, with the
        // signature not last, or signed by another path
        let unsigned = try harness.get(target)
        let wrong = try harness.get(target + "&signature=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        let signature = try ServerHarness.signature(of: target)
        let notLast = try harness.get("/thumbnail?signature=\(signature)&url=\(harness.origin)/photo.jpg&width=64&height=64")
        let otherPath = try harness.get(target.replacingOccurrences(of: "width=64", with: "width=4000") + "&signature=\(signature)")

        // Then each is refused before any fetch
        #expect(unsigned.status == 403)
        #expect(String(decoding: unsigned.body, as: UTF8.self).contains("signature"))
        #expect(wrong.status == 403)
        #expect(notLast.status == 403)
        #expect(otherPath.status == 403)
        #expect(harness.originRequests == 0)

        // And the signed one is made
        let signed = try harness.get(target + "&signature=\(signature)")
        #expect(signed.status == 200)
        #expect(try ImgproxyInterfaceTests.size(of: signed.body, in: harness) == "64x48")
        #expect(harness.originRequests == 1)
    }

    @Test("--allow-unsigned-query answers the query form unsigned, and still refuses unsigned imgproxy-style paths")
    func allowUnsignedQuery() throws {
        let harness = try ImgproxyInterfaceTests.started(["--allow-unsigned-query"])
        #expect(try harness.get(Self.query(harness.origin)).status == 200)
        #expect(try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png").status == 403)
        #expect(harness.originRequests == 1)
    }

    /// The 8 base64url spellings of `signature`: its last character with each
    /// value of its 2 spare bits, with and without a trailing `=`.
    static func spellings(of signature: String) -> [String] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let value = alphabet.firstIndex(of: signature.last!)!
        var spellings: [String] = []
        for spare in 0..<4 {
            let last = String(alphabet[value & ~3 | spare])
            spellings.append(signature.dropLast() + last)
            spellings.append(signature.dropLast() + last + "=")
        }
        return spellings
    }

    @Test("the 8 spellings of one signature: 1 accepted (the canonical one), 7 refused, for both URL forms")
    func oneSpellingPerSignature() throws {
        let harness = try ImgproxyInterfaceTests.started([])
        let path = "/rs:fit:40:40/plain/\(harness.origin)/photo.jpg@png"
        let signature = try ServerHarness.signature(of: path)
        let spellings = Self.spellings(of: signature)
        #expect(Set(spellings).count == 8)
        // Every spelling decodes to the same 32 bytes: the old check accepted all 8.
        #expect(Set(spellings.compactMap { URLSigner.decodeBase64URL($0) }).count == 1)
        let statuses = try spellings.map { try harness.get("/" + $0 + path).status }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 403 }.count == 7)
        #expect(statuses[0] == 200 && spellings[0] == signature)

        let target = Self.query(harness.origin)
        let querySignature = try ServerHarness.signature(of: target)
        let queryStatuses = try Self.spellings(of: querySignature).map { try harness.get(target + "&signature=" + $0).status }
        #expect(queryStatuses == [200, 403, 403, 403, 403, 403, 403, 403])
    }

    @Test("unknown paths are 404s, not 403s; a signature-shaped first segment still gets its 403")
    func unknownRoutes() throws {
        let harness = try ImgproxyInterfaceTests.started([])
        for path in ["/favicon.ico", "/robots.txt", "/admin", "/admin/users", "/thumbnails", "/insecure"] {
            let reply = try harness.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(String(decoding: reply.body, as: UTF8.self) == "not found\n", "\(path)")
        }
        #expect(try harness.head("/favicon.ico").status == 404)
        #expect(try harness.get("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/rs:fit:10:10/plain/\(harness.origin)/photo.jpg").status == 403)
        #expect(harness.originRequests == 0)
    }

    @Test("the signed text of the query form is everything before a last signature parameter")
    func querySignatureSplit() {
        let split = SignaturePolicy.querySignature(in: "/thumbnail?url=a&width=1&signature=XYZ")
        #expect(split?.signed == "/thumbnail?url=a&width=1")
        #expect(split?.signature == "XYZ")
        #expect(SignaturePolicy.querySignature(in: "/thumbnail?signature=XYZ")?.signed == "/thumbnail")
        #expect(SignaturePolicy.querySignature(in: "/thumbnail?signature=A&url=a&signature=B") == nil)
        #expect(SignaturePolicy.querySignature(in: "/thumbnail?url=a&signature") == nil)
        #expect(SignaturePolicy.querySignature(in: "/thumbnail") == nil)
    }
}
