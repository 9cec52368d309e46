import CCrypto
import Foundation

/// Checks imgproxy-style URL signatures: the first path segment is
/// `base64url(HMAC-SHA256(key, salt + rest of the path))`, unpadded, where
/// the rest of the path starts with its `/` and is taken as sent (still
/// percent-encoded). Key and salt are given as hex, as imgproxy's
/// `IMGPROXY_KEY` and `IMGPROXY_SALT` are, so URLs signed for imgproxy with
/// the same pair verify here.
///
/// The HMAC is OpenSSL's (libcrypto), and the comparison is constant-time
/// (`CRYPTO_memcmp`), so the time of a refusal says nothing about how much of
/// a forged signature was right.
struct URLSigner: Sendable {
    private let key: [UInt8]
    private let salt: [UInt8]

    /// A signer from hex key and salt; `nil` when either is empty or not hex.
    init?(keyHex: String, saltHex: String) {
        guard let key = Self.bytes(hex: keyHex), let salt = Self.bytes(hex: saltHex), !key.isEmpty else { return nil }
        self.key = key
        self.salt = salt
    }

    /// The signature of `path` (which starts with `/`), base64url without padding.
    func signature(of path: String) -> String {
        Self.base64URL(Self.hmacSHA256(key: key, message: salt + Array(path.utf8)))
    }

    /// Whether `signature` is the signature of `path`, spelled exactly as
    /// ``signature(of:)`` spells it.
    ///
    /// The comparison is of the text, not of the decoded bytes: base64url
    /// lets one digest be written several ways (a trailing `=`, other values
    /// of the last character's spare bits), and each spelling would be
    /// another URL for a CDN and another key for the result cache. Only the
    /// canonical, unpadded one verifies. The lengths are compared first
    /// (every signature has 43 characters, so that says nothing secret),
    /// then the characters in constant time.
    func verify(signature: some StringProtocol, path: String) -> Bool {
        let expected = Array(self.signature(of: path).utf8)
        let given = Array(signature.utf8)
        guard given.count == expected.count else { return false }
        return given.withUnsafeBytes { a in
            expected.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                digest.withUnsafeMutableBytes { out in
                    HMAC(
                        EVP_sha256(), key.baseAddress, Int32(key.count),
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length
                    ) != nil
                }
            }
        }
        // HMAC with SHA-256 fails only when out of memory; a digest of zeros
        // then matches no real signature.
        return ok ? Array(digest.prefix(Int(length))) : [UInt8](repeating: 0, count: 32)
    }

    /// `bytes` in base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url, padded or not; `nil` when it is not.
    static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("=") || standard.count % 4 == 0 else { return nil }
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    /// Bytes from hex digits; `nil` for an odd count or a non-hex digit.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
