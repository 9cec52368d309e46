import Testing
@testable import AsyncWebImageRedis

@Suite("RendezvousHashing")
struct RendezvousHashingTests {
    private let keys: [UInt64] = (0..<12_000).map { RendezvousHashing.mix(UInt64($0)) }

    @Test("keys spread evenly over three nodes")
    func spread() {
        let hashing = RendezvousHashing(nodes: ["10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"])
        var counts = [0, 0, 0]
        for key in keys { counts[hashing.node(for: key)] += 1 }
        for count in counts { #expect(count > 3_400 && count < 4_600) }
    }

    @Test("adding a fourth node moves only about a quarter of the keys, all of them to the new node")
    func minimalMovement() {
        let three = RendezvousHashing(nodes: ["a:1", "b:1", "c:1"])
        let four = RendezvousHashing(nodes: ["a:1", "b:1", "c:1", "d:1"])
        var moved = 0
        for key in keys where three.node(for: key) != four.node(for: key) {
            moved += 1
            #expect(four.node(for: key) == 3)
        }
        #expect(moved > 2_400 && moved < 3_600)
    }

    @Test("the node a key goes to depends on node names, not on their order")
    func orderIndependent() {
        let forward = RendezvousHashing(nodes: ["a:1", "b:1", "c:1"])
        let backward = RendezvousHashing(nodes: ["c:1", "b:1", "a:1"])
        for key in keys.prefix(1000) { #expect(2 - forward.node(for: key) == backward.node(for: key)) }
    }
}
