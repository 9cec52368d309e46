/// Picks the node a key lives on by rendezvous (highest random weight)
/// hashing: each node scores each key, the highest score wins.
///
/// Adding or removing a node moves only the keys that node wins or won
/// (about 1/n of them), unlike `hash % n`, which moves almost all. The scores
/// are stable across processes and machines (no seeded `Hasher`), so every
/// server of a fleet sends a key to the same node.
struct RendezvousHashing: Sendable {
    /// One seed per node, from its name.
    private let seeds: [UInt64]

    /// - Parameter nodes: Stable node names (for Redis, `host:port`).
    init(nodes: [String]) {
        seeds = nodes.map { Self.fnv1a(Array($0.utf8)) }
    }

    /// The index of the node `keyHash` lives on; `keyHash` is a stable
    /// 64-bit hash of the key (the store uses the first bytes of its SHA-256).
    func node(for keyHash: UInt64) -> Int {
        var best = 0
        var bestScore: UInt64 = 0
        for (index, seed) in seeds.enumerated() {
            let score = Self.mix(keyHash ^ seed)
            if index == 0 || score > bestScore {
                best = index
                bestScore = score
            }
        }
        return best
    }

    /// FNV-1a, 64-bit: a stable hash of a node name.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// SplitMix64's finaliser: spreads a combined key and seed over all 64 bits,
    /// so that the per-node scores of one key are independent.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
