extension CurlDataLoader {
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
            /// Every other special-purpose block the IANA registries mark not
            /// globally reachable: 240/4 and 255.255.255.255, 192.0.0/24 (but its
            /// public anycast .9 and .10), documentation (192.0.2/24,
            /// 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20),
            /// benchmarking (198.18/15, 2001:2::/48), 192.88.99/24, discard-only
            /// 100::/64, 2001::/23 (but its global services and Teredo), SRv6
            /// 5f00::/16, fec0::/10 (deprecated site-local), and ::/8 beyond
            /// the forms above — including IPv4-translated `::ffff:0:a.b.c.d`,
            /// IPv4-compatible `::a.b.c.d` and local NAT64 64:ff9b:1::/48.
            public static let reserved = Categories(rawValue: 1 << 6)

            /// Every category: what a server fetching user URLs should refuse.
            public static let all: Categories = [.loopback, .privateNetwork, .linkLocal, .unspecified, .sharedAddressSpace, .multicast, .reserved]
        }

        /// What is refused. ``Categories/all`` by default.
        public var refused: Categories
        /// Addresses allowed whatever their category (e.g. `127.0.0.1` in tests).
        public var allowed: Set<CurlDataLoader.DestinationGuard.IPAddress>

        /// Creates a guard refusing `refused` except the `allowed` addresses.
        public init(refused: Categories = .all, allowed: Set<CurlDataLoader.DestinationGuard.IPAddress> = []) {
            self.refused = refused
            self.allowed = allowed
        }

        /// Whether a connection to `address` may be made.
        public func permits(_ address: CurlDataLoader.DestinationGuard.IPAddress) -> Bool {
            if allowed.contains(address) { return true }
            return Self.categories(of: address).isDisjoint(with: refused)
        }

        /// The categories `address` belongs to, including those of an IPv4
        /// address embedded in an IPv6 one.
        public static func categories(of address: CurlDataLoader.DestinationGuard.IPAddress) -> Categories {
            switch address {
            case .v4(let value): return categories(ofV4: value)
            case .v6(let bytes): return categories(ofV6: bytes)
            }
        }

        /// The IPv4 blocks refused, each with its category: every block of the
        /// IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates)
        /// not marked globally reachable, plus multicast and limited broadcast.
        static let specialV4: [(network: UInt32, prefix: UInt32, category: Categories)] = [
            (0x0000_0000, 8, .unspecified),         // "this network" (RFC 791)
            (0x0A00_0000, 8, .privateNetwork),      // RFC 1918
            (0x6440_0000, 10, .sharedAddressSpace), // CGNAT (RFC 6598)
            (0x7F00_0000, 8, .loopback),
            (0xA9FE_0000, 16, .linkLocal),
            (0xAC10_0000, 12, .privateNetwork),
            (0xC000_0000, 24, .reserved),           // IETF protocol assignments (RFC 6890), DS-Lite, NAT64 discovery
            (0xC000_0200, 24, .reserved),           // TEST-NET-1 (RFC 5737)
            (0xC058_6300, 24, .reserved),           // deprecated 6to4 relay anycast (RFC 7526)
            (0xC0A8_0000, 16, .privateNetwork),
            (0xC612_0000, 15, .reserved),           // benchmarking (RFC 2544)
            (0xC633_6400, 24, .reserved),           // TEST-NET-2
            (0xCB00_7100, 24, .reserved),           // TEST-NET-3
            (0xE000_0000, 4, .multicast),
            (0xF000_0000, 4, .reserved),            // reserved (RFC 1112), including 255.255.255.255
        ]

        /// Addresses inside a refused block that the registry marks globally
        /// reachable: public anycast services (RFC 7723 PCP, RFC 8155 TURN).
        static let globalV4: Set<UInt32> = [0xC000_0009, 0xC000_000A]

        private static func categories(ofV4 a: UInt32) -> Categories {
            if globalV4.contains(a) { return [] }
            var result: Categories = []
            for block in specialV4 {
                let mask: UInt32 = block.prefix == 0 ? 0 : ~UInt32(0) << (32 - block.prefix)
                if a & mask == block.network & mask { result.insert(block.category) }
            }
            return result
        }

        /// Whether the first `prefix` bits of `address` are those of `network`
        /// (written as up to 16 bytes, the rest zero).
        private static func within(_ address: [UInt8], _ network: [UInt8], _ prefix: Int) -> Bool {
            for bit in stride(from: 0, to: prefix, by: 8) {
                let index = bit / 8
                let mask: UInt8 = prefix - bit >= 8 ? 0xFF : ~(0xFF >> UInt8(prefix - bit))
                let expected = index < network.count ? network[index] : 0
                if address[index] & mask != expected & mask { return false }
            }
            return true
        }

        /// The IPv6 blocks refused outright, each with its category: every
        /// block of the IANA IPv6 Special-Purpose Address Registry not marked
        /// globally reachable (those carrying IPv4 are judged by it, below),
        /// plus multicast and deprecated site-local.
        static let specialV6: [(network: [UInt8], prefix: Int, category: Categories)] = [
            ([0xFC], 7, .privateNetwork),                    // unique local (RFC 4193)
            ([0xFE, 0x80], 10, .linkLocal),
            ([0xFE, 0xC0], 10, .reserved),                   // site-local (deprecated, RFC 3879)
            ([0xFF], 8, .multicast),
            ([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01], 48, .reserved), // local-use IPv4/IPv6 translation (RFC 8215)
            ([0x01, 0x00], 64, .reserved),                   // discard-only (RFC 6666)
            ([0x01, 0x00, 0, 0, 0, 0, 0, 0x01], 64, .reserved), // dummy IPv6 prefix (RFC 9780)
            ([0x20, 0x01], 23, .reserved),                   // IETF protocol assignments (RFC 2928)
            ([0x20, 0x01, 0x0D, 0xB8], 32, .reserved),       // documentation (RFC 3849)
            ([0x3F, 0xFF], 20, .reserved),                   // documentation (RFC 9637)
            ([0x5F, 0x00], 16, .reserved),                   // SRv6 SIDs (RFC 9602)
        ]

        /// Blocks inside a refused one that the registry marks globally
        /// reachable (public anycast and overlay services), or that carry IPv4
        /// judged on its own (Teredo).
        static let globalV6: [(network: [UInt8], prefix: Int)] = [
            ([0x20, 0x01, 0x00, 0x00], 32),                              // Teredo (RFC 4380): judged by its IPv4 below
            ([0x20, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01], 128), // PCP anycast (RFC 7723)
            ([0x20, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02], 128), // TURN anycast (RFC 8155)
            ([0x20, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03], 128), // DNS-SD SRP anycast (RFC 9665)
            ([0x20, 0x01, 0x00, 0x03], 32),                              // AMT (RFC 7450)
            ([0x20, 0x01, 0x00, 0x04, 0x01, 0x12], 48),                  // AS112-v6 (RFC 7535)
            ([0x20, 0x01, 0x00, 0x20], 28),                              // ORCHIDv2 (RFC 7343)
            ([0x20, 0x01, 0x00, 0x30], 28),                              // drone remote ID (RFC 9374)
        ]

        private static func categories(ofV6 b: [UInt8]) -> Categories {
            guard b.count == 16 else { return .reserved }
            func v4(at offset: Int, inverted: Bool = false) -> UInt32 {
                let value = UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
                return inverted ? ~value : value
            }
            let zeros = { (range: Range<Int>) in b[range].allSatisfy { $0 == 0 } }
            var result: Categories = []
            if !globalV6.contains(where: { within(b, $0.network, $0.prefix) }) {
                for block in specialV6 where within(b, block.network, block.prefix) { result.insert(block.category) }
            }
            // ::/8 is reserved by the IETF (RFC 4291) apart from the forms below;
            // each form that carries IPv4 says where the address sits.
            if b[0] == 0 {
                if zeros(0..<16) {
                    result.insert(.unspecified)                                   // ::
                } else if zeros(0..<15) && b[15] == 1 {
                    result.insert(.loopback)                                      // ::1
                } else if zeros(0..<10) && b[10] == 0xFF && b[11] == 0xFF {
                    result.formUnion(categories(ofV4: v4(at: 12)))                // ::ffff:a.b.c.d (mapped)
                } else if b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && zeros(4..<12) {
                    result.formUnion(categories(ofV4: v4(at: 12)))                // 64:ff9b::/96 (NAT64, RFC 6052)
                } else {
                    // Never a destination on the Internet: ::ffff:0:a.b.c.d
                    // (translated, RFC 2765), ::a.b.c.d (compatible, deprecated),
                    // 64:ff9b:1::/48 and the rest. Where IPv4 sits in the last
                    // 32 bits, its categories are added too.
                    result.insert(.reserved)
                    result.formUnion(categories(ofV4: v4(at: 12)))
                }
            }
            if b[0] == 0x20 && b[1] == 0x02 {
                result.formUnion(categories(ofV4: v4(at: 2)))                     // 2002:aabb:ccdd::/48 (6to4)
            }
            if within(b, [0x20, 0x01, 0x00, 0x00], 32) {
                // Teredo 2001::/32: the server's IPv4 in bits 32–63, the client's
                // obfuscated (inverted) in the last 32.
                result.formUnion(categories(ofV4: v4(at: 4)))
                result.formUnion(categories(ofV4: v4(at: 12, inverted: true)))
            }
            return result
        }
    }
}
