/// SHA-256 (FIPS 180-4), for naming cache files after their keys.
///
/// The disk store needs a digest that spreads keys evenly and that nobody can
/// steer into a collision with another key's file; a cryptographic hash gives
/// both, and the package has no crypto dependency, so this small one lives
/// here. It is not constant-time and is not meant for secrets.
package struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
    )
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    init() {
        buffer.reserveCapacity(64)
    }

    /// The 32-byte digest of `bytes`.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The 32-byte digest of the bytes in `buffer`.
    static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(buffer)
        return hasher.finalize()
    }

    /// The digest of `string`'s UTF-8 bytes as 64 lowercase hex digits.
    package static func hexDigest(_ string: String) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        var string = string
        let digest = string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if handled == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update($0) }
        }
    }

    /// Adds `bytes` to the message: whole blocks straight from the input,
    /// only the ragged ends through the buffer.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var input = bytes[...]
        length &+= UInt64(bytes.count)
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, input.count)
            buffer.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            guard buffer.count == 64 else { return }
            buffer.withUnsafeBytes { compress($0) }
            buffer.removeAll(keepingCapacity: true)
        }
        while input.count >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: input.prefix(64)))
            input = input.dropFirst(64)
        }
        buffer.append(contentsOf: input)
    }

    /// Pads the message and returns its digest.
    mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = buffer
        tail.append(0x80)
        if tail.count > 56 {
            tail.append(contentsOf: repeatElement(0, count: 64 - tail.count))
            tail.withUnsafeBytes { compress($0) }
            tail.removeAll(keepingCapacity: true)
        }
        tail.append(contentsOf: repeatElement(0, count: 56 - tail.count))
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBytes { compress($0) }
        buffer.removeAll()
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    /// Compresses one 64-byte block.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        // On the stack: a key is hashed on every store operation.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            compress(block, schedule: w)
        }
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer, schedule w: UnsafeMutableBufferPointer<UInt32>) {
        for i in 0..<16 {
            w[i] = UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16
                | UInt32(block[4 * i + 2]) << 8 | UInt32(block[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        for i in 0..<64 {
            let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ Self.roundConstants[i] &+ w[i]
            let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            h = g; g = f; f = e; e = d &+ t1
            d = c; c = b; b = a; a = t1 &+ t2
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                 state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
