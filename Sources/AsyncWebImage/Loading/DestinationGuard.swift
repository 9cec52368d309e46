/// Refuses connections to addresses a server-side loader must never reach
/// (SSRF protection): loopback, private, link-local, unspecified, shared
/// (CGNAT), multicast and reserved addresses — including IPv4 addresses
/// carried inside IPv6 (mapped, compatible, 6to4, NAT64, Teredo).
///
/// The guard is applied where the socket is opened (curl's
/// `CURLOPT_OPENSOCKETFUNCTION`), to the address actually connected, so
/// neither a redirect nor DNS rebinding can slip past it. Off by default in
/// ``CurlDataLoader``; a server fetching user-supplied URLs should turn it on.
public struct DestinationGuard: Sendable, Hashable {
    /// Kinds of address the guard knows.
    public struct Categories: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        /// Creates categories from raw bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// 127.0.0.0/8, ::1.
        public static let loopback = Categories(rawValue: 1 << 0)
        /// 10/8, 172.16/12, 192.168/16 (RFC 1918) and IPv6 unique local fc00::/7.
        public static let privateNetwork = Categories(rawValue: 1 << 1)
        /// 169.254/16, fe80::/10.
        public static let linkLocal = Categories(rawValue: 1 << 2)
        /// 0.0.0.0/8, ::.
        public static let unspecified = Categories(rawValue: 1 << 3)
        /// 100.64/10 (carrier-grade NAT, RFC 6598).
        public static let sharedAddressSpace = Categories(rawValue: 1 << 4)
        /// 224/4, ff00::/8.
        public static let multicast = Categories(rawValue: 1 << 5)
        /// 240/4 and 255.255.255.255, 192.0.0/24, 198.18/15, fec0::/10 (deprecated site-local).
        public static let reserved = Categories(rawValue: 1 << 6)

        /// Every category: what a server fetching user URLs should refuse.
        public static let all: Categories = [.loopback, .privateNetwork, .linkLocal, .unspecified, .sharedAddressSpace, .multicast, .reserved]
    }

    /// What is refused. ``Categories/all`` by default.
    public var refused: Categories
    /// Addresses allowed whatever their category (e.g. `127.0.0.1` in tests).
    public var allowed: Set<IPAddress>

    /// Creates a guard refusing `refused` except the `allowed` addresses.
    public init(refused: Categories = .all, allowed: Set<IPAddress> = []) {
        self.refused = refused
        self.allowed = allowed
    }

    /// Whether a connection to `address` may be made.
    public func permits(_ address: IPAddress) -> Bool {
        if allowed.contains(address) { return true }
        return Self.categories(of: address).isDisjoint(with: refused)
    }

    /// The categories `address` belongs to, including those of an IPv4
    /// address embedded in an IPv6 one.
    public static func categories(of address: IPAddress) -> Categories {
        switch address {
        case .v4(let value): return categories(ofV4: value)
        case .v6(let bytes): return categories(ofV6: bytes)
        }
    }

    private static func categories(ofV4 a: UInt32) -> Categories {
        func within(_ network: UInt32, _ prefix: UInt32) -> Bool {
            let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
            return a & mask == network & mask
        }
        var result: Categories = []
        if within(0x7F00_0000, 8) { result.insert(.loopback) }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) { result.insert(.privateNetwork) }
        if within(0xA9FE_0000, 16) { result.insert(.linkLocal) }
        if within(0x0000_0000, 8) { result.insert(.unspecified) }
        if within(0x6440_0000, 10) { result.insert(.sharedAddressSpace) }
        if within(0xE000_0000, 4) { result.insert(.multicast) }
        if within(0xF000_0000, 4) || within(0xC000_0000, 24) || within(0xC612_0000, 15) { result.insert(.reserved) }
        return result
    }

    private static func categories(ofV6 b: [UInt8]) -> Categories {
        guard b.count == 16 else { return .reserved }
        func v4(at offset: Int, inverted: Bool = false) -> UInt32 {
            let value = UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
            return inverted ? ~value : value
        }
        let zeros = { (range: Range<Int>) in b[range].allSatisfy { $0 == 0 } }
        var result: Categories = []
        if zeros(0..<16) { result.insert(.unspecified) }
        if zeros(0..<15) && b[15] == 1 { result.insert(.loopback) }
        if b[0] & 0xFE == 0xFC { result.insert(.privateNetwork) }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { result.insert(.linkLocal) }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { result.insert(.reserved) }
        if b[0] == 0xFF { result.insert(.multicast) }
        // IPv4 carried inside IPv6: each form names where the IPv4 address sits.
        if zeros(0..<10) && b[10] == 0xFF && b[11] == 0xFF {
            result.formUnion(categories(ofV4: v4(at: 12)))                 // ::ffff:a.b.c.d (mapped)
        } else if zeros(0..<12) && !zeros(12..<16) && !(zeros(12..<15) && b[15] == 1) {
            result.formUnion(categories(ofV4: v4(at: 12)))                 // ::a.b.c.d (compatible, deprecated)
        }
        if b[0] == 0x20 && b[1] == 0x02 {
            result.formUnion(categories(ofV4: v4(at: 2)))                  // 2002:aabb:ccdd::/48 (6to4)
        }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B {
            if zeros(4..<12) { result.formUnion(categories(ofV4: v4(at: 12))) }          // 64:ff9b::/96 (NAT64)
            if b[4] == 0 && b[5] == 1 { result.formUnion(categories(ofV4: v4(at: 12))) } // 64:ff9b:1::/48 (local NAT64)
        }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00 {
            // Teredo 2001::/32: the server's IPv4 in bits 32–63, the client's
            // obfuscated (inverted) in the last 32.
            result.formUnion(categories(ofV4: v4(at: 4)))
            result.formUnion(categories(ofV4: v4(at: 12, inverted: true)))
        }
        return result
    }
}
