import Testing
@testable import AsyncWebImage

@Suite("WeakRecoveryTable", .timeLimit(.minutes(1)))
struct WeakRecoveryTableTests {
    @Test("a live image comes back whole; taking it removes the entry")
    func take() throws {
        var table = WeakRecoveryTable()
        let image = try Image(width: 2, height: 1, pixelFormat: .rgb8, bytesPerRow: 8, pixels: [UInt8](repeating: 3, count: 8),
                              orientation: .right, format: .jpeg)
        table.insert(image, forKey: "k", cost: 99)
        let result = table.take("k")
        let taken = try #require(result)
        #expect(taken.cost == 99)
        #expect(taken.image.storage === image.storage)
        #expect(taken.image.bytesPerRow == 8 && taken.image.orientation == .right && taken.image.format == .jpeg)
        #expect(taken.image == image)
        let again = table.take("k")
        #expect(again == nil)
        #expect(table.count == 0)
    }

    @Test("dead entries are swept by later insertions, bounded per insertion")
    func incrementalSweep() {
        // Given 100 entries whose images died
        var table = WeakRecoveryTable()
        for index in 0..<100 { table.insert(TestImages.costing(4), forKey: "dead\(index)", cost: 4) }
        #expect(table.count <= 100)
        // When 50 live images are inserted (each sweeps two slots)
        let live = (0..<50).map { _ in TestImages.costing(4) }
        for (index, image) in live.enumerated() { table.insert(image, forKey: "live\(index)", cost: 4) }
        // Then every dead entry is gone and every live one remains
        #expect(table.count == 50)
        for index in 0..<50 { #expect(table.containsLive("live\(index)")) }
    }
}
