import Testing
@testable import AsyncWebImage

@Suite("LRUStorage", .timeLimit(.minutes(1)))
struct LRUStorageTests {
    @Test("keeps order and cost through inserts, reads, removals and slot reuse")
    func order() {
        // Given a, b, c
        var lru = LRUStorage<String, Int>()
        lru.setValue(1, forKey: "a", cost: 1)
        lru.setValue(2, forKey: "b", cost: 2)
        lru.setValue(3, forKey: "c", cost: 3)
        // When a is read, b removed, d added into b's freed slot
        #expect(lru.value(forKey: "a") == 1)
        #expect(lru.removeValue(forKey: "b")?.cost == 2)
        lru.setValue(4, forKey: "d", cost: 4)
        // Then the order is d a c and the eviction order is c, a, d
        #expect(lru.keysByRecency == ["d", "a", "c"])
        #expect(lru.totalCost == 8)
        #expect(lru.removeLeastRecentlyUsed()?.key == "c")
        #expect(lru.removeLeastRecentlyUsed()?.key == "a")
        #expect(lru.removeLeastRecentlyUsed()?.key == "d")
        #expect(lru.removeLeastRecentlyUsed() == nil)
        #expect(lru.totalCost == 0 && lru.count == 0)
    }

    @Test("matches a reference model over a bounded random sequence")
    func model() {
        var lru = LRUStorage<Int, Int>()
        var model: [Int] = [] // most recent first
        var generator = SystemRandomNumberGenerator()
        for step in 0..<5000 {
            let key = Int.random(in: 0..<40, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                lru.setValue(step, forKey: key, cost: 1)
                model.removeAll { $0 == key }
                model.insert(key, at: 0)
            case 1:
                let hit = lru.value(forKey: key) != nil
                #expect(hit == model.contains(key))
                if hit { model.removeAll { $0 == key }; model.insert(key, at: 0) }
            case 2:
                #expect((lru.removeValue(forKey: key) != nil) == model.contains(key))
                model.removeAll { $0 == key }
            default:
                #expect(lru.removeLeastRecentlyUsed()?.key == model.popLast())
            }
        }
        #expect(lru.keysByRecency == model)
        #expect(lru.totalCost == model.count)
    }
}
