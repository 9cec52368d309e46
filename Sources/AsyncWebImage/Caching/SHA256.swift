import COpenSSL

/// SHA-256 (FIPS 180-4) from OpenSSL's libcrypto, for naming cache files,
/// `Vary` variants and shared-tier slots after their keys.
///
/// The disk store needs a digest that spreads keys evenly and that nobody can
/// steer into a collision with another key's file; libcrypto is linked
/// anyway (curl's TLS backend), so its digest is the one owner of this
/// mechanism. File names must never change between releases: the tests pin
/// the NIST vectors and a stored key's digest.
package enum SHA256 {
    /// The 32-byte digest of the bytes in `buffer`.
    static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let succeeded = digest.withUnsafeMutableBufferPointer { output in
            EVP_Digest(buffer.baseAddress, buffer.count, output.baseAddress, &length, EVP_sha256(), nil) == 1
        }
        // EVP_Digest fails only when libcrypto cannot allocate its context:
        // no digest can be made then, and naming files by a wrong one would
        // mix entries, so stop as an allocation failure would.
        precondition(succeeded && length == 32, "libcrypto's SHA-256 failed")
        return digest
    }

    /// The digest of `string`'s UTF-8 bytes as 64 lowercase hex digits.
    package static func hexDigest(_ string: String) -> String {
        var string = string
        let digest = string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
