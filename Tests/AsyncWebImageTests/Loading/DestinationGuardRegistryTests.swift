import Testing
@testable import AsyncWebImage

/// The destination guard against every block of the IANA IPv4 and IPv6
/// Special-Purpose Address Registries (RFC 6890 and its updates, as of
/// 2025), written out here independently of the guard's own table, and
/// against IPv4 carried in every IPv6 form (issue 12, finding 8: the
/// IPv4-translated `[::ffff:0:7f00:1]` was let through).
///
/// The rule checked: a block the registry marks not globally reachable is
/// refused at its first and last address; one marked globally reachable is
/// permitted; a block that carries IPv4 (mapped, translated, NAT64, 6to4,
/// Teredo) is judged by the IPv4 address inside, except the forms that are
/// never Internet destinations (translated, compatible, local-use NAT64),
/// which are refused whatever they carry.
@Suite("CurlDataLoader.DestinationGuard and the IANA special-purpose registries")
struct DestinationGuardRegistryTests {
    struct Block: CustomTestStringConvertible, Sendable {
        var cidr: String
        var globallyReachable: Bool
        var testDescription: String { "\(cidr) \(globallyReachable ? "global" : "not global")" }
    }

    /// IANA IPv4 Special-Purpose Address Registry, plus multicast (its own registry).
    static let ipv4: [Block] = [
        ("0.0.0.0/8", false), ("0.0.0.0/32", false), ("10.0.0.0/8", false), ("100.64.0.0/10", false),
        ("127.0.0.0/8", false), ("169.254.0.0/16", false), ("172.16.0.0/12", false),
        ("192.0.0.0/24", false), ("192.0.0.0/29", false), ("192.0.0.8/32", false),
        ("192.0.0.9/32", true), ("192.0.0.10/32", true), ("192.0.0.170/32", false), ("192.0.0.171/32", false),
        ("192.0.2.0/24", false), ("192.31.196.0/24", true), ("192.52.193.0/24", true),
        ("192.88.99.0/24", false), ("192.168.0.0/16", false), ("192.175.48.0/24", true),
        ("198.18.0.0/15", false), ("198.51.100.0/24", false), ("203.0.113.0/24", false),
        ("240.0.0.0/4", false), ("255.255.255.255/32", false),
        ("224.0.0.0/4", false),
    ].map { Block(cidr: $0.0, globallyReachable: $0.1) }

    /// IANA IPv6 Special-Purpose Address Registry (blocks carrying IPv4 are
    /// in ``embeddings``), plus multicast and deprecated site-local.
    static let ipv6: [Block] = [
        ("::1/128", false), ("::/128", false), ("64:ff9b:1::/48", false),
        ("100::/64", false), ("100:0:0:1::/64", false), ("2001::/23", false),
        ("2001:1::1/128", true), ("2001:1::2/128", true), ("2001:1::3/128", true),
        ("2001:2::/48", false), ("2001:3::/32", true), ("2001:4:112::/48", true),
        ("2001:10::/28", false), ("2001:20::/28", true), ("2001:30::/28", true),
        ("2001:db8::/32", false), ("2620:4f:8000::/48", true), ("3fff::/20", false),
        ("5f00::/16", false), ("fc00::/7", false), ("fe80::/10", false),
        ("ff00::/8", false), ("fec0::/10", false),
    ].map { Block(cidr: $0.0, globallyReachable: $0.1) }

    /// The first and last address of `cidr`, as 4 or 16 bytes.
    static func bounds(_ cidr: String) throws -> (first: CurlDataLoader.DestinationGuard.IPAddress, last: CurlDataLoader.DestinationGuard.IPAddress) {
        let parts = cidr.split(separator: "/")
        let network = try #require(CurlDataLoader.DestinationGuard.IPAddress(String(parts[0])))
        let prefix = try #require(Int(parts[1]))
        var bytes: [UInt8]
        switch network {
        case .v4(let value): bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        case .v6(let value): bytes = value
        }
        var last = bytes
        for bit in prefix..<(bytes.count * 8) { last[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        func address(_ bytes: [UInt8]) -> CurlDataLoader.DestinationGuard.IPAddress {
            bytes.count == 4 ? .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) }) : .v6(bytes)
        }
        return (address(bytes), address(last))
    }

    @Test("every special-purpose block: refused unless globally reachable, at both ends", arguments: ipv4 + ipv6)
    func registryBlock(block: Block) throws {
        let (first, last) = try Self.bounds(block.cidr)
        for address in [first, last] {
            #expect(
                CurlDataLoader.DestinationGuard().permits(address) == block.globallyReachable,
                "\(address) in \(block.cidr) → \(CurlDataLoader.DestinationGuard.categories(of: address))")
        }
    }

    /// An IPv6 form carrying an IPv4 address, and whether it is ever an Internet destination.
    struct Embedding: CustomTestStringConvertible, Sendable {
        var name: String
        var carriesPublicV4: Bool
        var make: @Sendable ([UInt8]) -> [UInt8]
        var testDescription: String { name }
    }

    static let publicV4: [UInt8] = [8, 8, 8, 8]
    static func inverted(_ bytes: [UInt8]) -> [UInt8] { bytes.map { ~$0 } }

    static let embeddings: [Embedding] = [
        Embedding(name: "mapped ::ffff:0:0/96", carriesPublicV4: true) { [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + $0 },
        Embedding(name: "translated ::ffff:0:0:0/96", carriesPublicV4: false) { [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0, 0] + $0 },
        Embedding(name: "compatible ::/96", carriesPublicV4: false) { [UInt8](repeating: 0, count: 12) + $0 },
        Embedding(name: "NAT64 64:ff9b::/96", carriesPublicV4: true) { [0, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 8) + $0 },
        Embedding(name: "local NAT64 64:ff9b:1::/48", carriesPublicV4: false) { [0, 0x64, 0xFF, 0x9B, 0, 1] + [UInt8](repeating: 0, count: 6) + $0 },
        Embedding(name: "6to4 2002::/16", carriesPublicV4: true) { [0x20, 0x02] + $0 + [UInt8](repeating: 0, count: 9) + [1] },
        Embedding(name: "Teredo server", carriesPublicV4: true) { [0x20, 0x01, 0, 0] + $0 + [0x80, 0, 0x63, 0xBF] + inverted(publicV4) },
        Embedding(name: "Teredo client", carriesPublicV4: true) { [0x20, 0x01, 0, 0] + publicV4 + [0x80, 0, 0x63, 0xBF] + inverted($0) },
    ]

    @Test("IPv4 inside IPv6: every non-global IPv4 block is refused in every form; a public one only where it is a real destination", arguments: embeddings)
    func embedded(form: Embedding) throws {
        for block in Self.ipv4 where !block.globallyReachable {
            let (first, last) = try Self.bounds(block.cidr)
            for case .v4(let value) in [first, last] {
                let v4 = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
                let address = CurlDataLoader.DestinationGuard.IPAddress.v6(form.make(v4))
                #expect(!CurlDataLoader.DestinationGuard().permits(address), "\(address) (\(block.cidr)) → \(CurlDataLoader.DestinationGuard.categories(of: address))")
            }
        }
        let carried = CurlDataLoader.DestinationGuard.IPAddress.v6(form.make(Self.publicV4))
        #expect(CurlDataLoader.DestinationGuard().permits(carried) == form.carriesPublicV4, "\(carried) → \(CurlDataLoader.DestinationGuard.categories(of: carried))")
    }

    @Test("the address of the report, [::ffff:0:7f00:1], is refused as reserved and loopback")
    func reportedAddress() throws {
        let address = try #require(CurlDataLoader.DestinationGuard.IPAddress("[::ffff:0:7f00:1]"))
        #expect(!CurlDataLoader.DestinationGuard().permits(address))
        #expect(CurlDataLoader.DestinationGuard.categories(of: address) == [.reserved, .loopback])
    }
}
