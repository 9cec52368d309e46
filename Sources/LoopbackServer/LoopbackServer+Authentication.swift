import Foundation

extension LoopbackServer {
    /// A handler that answers `response` only to requests with the right
    /// HTTP credentials, and `401` with a challenge (`WWW-Authenticate`) to
    /// others, as an origin behind authentication does.
    public enum Authentication: Sendable {
        /// `Authorization: Basic base64(user:password)`.
        case basic(user: String, password: String)
        /// RFC 7616 digest with MD5 and `qop=auth`, one fixed nonce.
        case digest(user: String, password: String, realm: String)
        /// `Authorization: Bearer <token>`.
        case bearer(String)

        /// Whether `request` carries these credentials.
        public func accepts(_ request: Request) -> Bool {
            guard let authorization = request[header: "authorization"] else { return false }
            switch self {
            case .basic(let user, let password):
                return authorization == "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            case .bearer(let token):
                return authorization == "Bearer \(token)"
            case .digest(let user, let password, let realm):
                guard authorization.hasPrefix("Digest ") else { return false }
                let fields = Self.parameters(String(authorization.dropFirst(7)))
                guard fields["username"] == user, fields["realm"] == realm, fields["nonce"] == Self.nonce,
                      let uri = fields["uri"], uri == request.target, let response = fields["response"] else { return false }
                let ha1 = MD5.hex("\(user):\(realm):\(password)")
                let ha2 = MD5.hex("\(request.method):\(uri)")
                let expected: String
                if fields["qop"] == "auth", let nc = fields["nc"], let cnonce = fields["cnonce"] {
                    expected = MD5.hex("\(ha1):\(Self.nonce):\(nc):\(cnonce):auth:\(ha2)")
                } else {
                    expected = MD5.hex("\(ha1):\(Self.nonce):\(ha2)")
                }
                return response == expected
            }
        }

        /// The challenge of a `401`.
        public var challenge: String {
            switch self {
            case .basic: "Basic realm=\"loopback\""
            case .bearer: "Bearer realm=\"loopback\""
            case .digest(_, _, let realm): "Digest realm=\"\(realm)\", qop=\"auth\", algorithm=MD5, nonce=\"\(Self.nonce)\""
            }
        }

        /// `response` to requests with these credentials, `401` with the challenge to others.
        public func handler(_ response: Response) -> Handler {
            { request in
                guard accepts(request) else {
                    var refusal = Response.status(401)
                    refusal.headers.append(("WWW-Authenticate", challenge))
                    return refusal
                }
                return response
            }
        }

        static let nonce = "5f0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f"

        /// `name=value` and `name="value"` pairs of a challenge response.
        static func parameters(_ text: String) -> [String: String] {
            var result: [String: String] = [:]
            var rest = Substring(text)
            while !rest.isEmpty {
                rest = rest.drop { $0 == " " || $0 == "," }
                guard let equals = rest.firstIndex(of: "=") else { break }
                let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                rest = rest[rest.index(after: equals)...]
                let value: Substring
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    let end = rest.firstIndex(of: "\"") ?? rest.endIndex
                    value = rest[..<end]
                    rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    value = rest[..<end]
                    rest = rest[end...]
                }
                result[name] = value.trimmingCharacters(in: .whitespaces)
            }
            return result
        }
    }
}

/// RFC 1321 MD5, for the digest check above only (test server code).
enum MD5 {
    static func hex(_ text: String) -> String {
        digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func digest(_ message: [UInt8]) -> [UInt8] {
        let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
        let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }
        var a0: UInt32 = 0x6745_2301, b0: UInt32 = 0xEFCD_AB89, c0: UInt32 = 0x98BA_DCFE, d0: UInt32 = 0x1032_5476
        var bytes = message
        let bitLength = UInt64(message.count) * 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))) }
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for index in 0..<16 {
                let base = chunk + index * 4
                words[index] = UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16 | UInt32(bytes[base + 3]) << 24
            }
            var a = a0, b = b0, c = c0, d = d0
            for index in 0..<64 {
                var f: UInt32
                let g: Int
                switch index {
                case 0..<16: f = (b & c) | (~b & d); g = index
                case 16..<32: f = (d & b) | (~d & c); g = (5 * index + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * index + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * index) % 16
                }
                f = f &+ a &+ constants[index] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ (f << shifts[index] | f >> (32 - shifts[index]))
            }
            a0 = a0 &+ a; b0 = b0 &+ b; c0 = c0 &+ c; d0 = d0 &+ d
        }
        return [a0, b0, c0, d0].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }
}
