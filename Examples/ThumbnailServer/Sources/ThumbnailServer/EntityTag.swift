import Foundation

/// A strong `ETag` for a thumbnail: a digest of the request's canonical
/// parameters and of the encoded thumbnail itself.
///
/// Why the encoded bytes and not the upstream's: the thumbnail is a pure
/// function of the upstream bytes and the parameters (decoding, resampling and
/// encoding are deterministic), so its digest changes exactly when what the
/// client would receive changes — also when the upstream changes — and it is
/// the same whether the pixels came from the network, the disk cache or the
/// memory cache, where the upstream bytes are no longer at hand. Hashing a
/// 20 KB thumbnail costs microseconds; hashing an 18 MP upstream would not.
///
/// The digest is 64-bit FNV-1a run twice with different offsets (128 bits):
/// not cryptographic, and it need not be — an ETag only has to change when
/// the content does, and nobody gains by forging a collision with their own
/// request.
struct EntityTag: Sendable, Hashable {
    /// The quoted value, as sent in `ETag` and compared with `If-None-Match`.
    let value: String

    /// Bumped when the server's output for the same input changes (a new
    /// resampler or encoder), so clients do not keep a stale 304.
    static let generation = "1"

    /// The tag of `body` made for `parameters`.
    init(parameters: String, body: Data) {
        var low = FNV1a(offset: 0xCBF2_9CE4_8422_2325)
        var high = FNV1a(offset: 0x6C62_272E_07BB_0142)
        for part in [Data(Self.generation.utf8), Data(parameters.utf8), body] {
            low.add(part)
            high.add(part)
            // A separator, so ("ab", "c") and ("a", "bc") differ.
            low.add(byte: 0xFF)
            high.add(byte: 0xFF)
        }
        value = "\"" + low.hex + high.hex + "\""
    }

    /// Whether an `If-None-Match` field value names this tag: `*`, or a
    /// comma-separated list of tags compared weakly (RFC 9110 §13.1.2:
    /// `W/"x"` matches `"x"`).
    func matches(ifNoneMatch field: String) -> Bool {
        field.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == value
        }
    }
}

/// 64-bit FNV-1a over bytes.
private struct FNV1a {
    private(set) var state: UInt64

    init(offset: UInt64) { state = offset }

    mutating func add(byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ data: Data) {
        data.withUnsafeBytes { bytes in
            var state = self.state
            for byte in bytes { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            self.state = state
        }
    }

    /// 16 lower-case hex digits.
    var hex: String {
        let digits = String(state, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
