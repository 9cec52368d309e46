import Testing
@testable import AsyncWebImage

@Suite("PendingQueue", .timeLimit(.minutes(1)))
struct PendingQueueTests {
    private func drain(_ queue: inout PendingQueue) -> [UInt64] {
        var order: [UInt64] = []
        for _ in 0..<100 {
            guard let id = queue.pop() else { break }
            order.append(id)
        }
        return order
    }

    @Test("FIFO and LIFO within a priority, higher priorities first")
    func order() {
        // Given queues in each order with mixed priorities
        for (order, expected) in [(CurlDataLoader.ExecutionOrder.fifo, [UInt64]([4, 1, 2, 5, 3])), (.lifo, [4, 5, 2, 1, 3])] {
            var queue = PendingQueue(order: order)
            queue.push(1, priority: .normal)
            queue.push(2, priority: .normal)
            queue.push(3, priority: .low)
            queue.push(4, priority: .high)
            queue.push(5, priority: .normal)

            // When drained
            // Then high first, low last, normal in the configured order
            #expect(drain(&queue) == expected)
            #expect(queue.count == 0)
        }
    }

    @Test("removal and re-prioritisation take effect without leaving ghosts")
    func changes() {
        // Given four waiting
        var queue = PendingQueue(order: .fifo)
        for id in UInt64(1)...4 { queue.push(id, priority: .normal) }

        // When one is removed, one promoted, one demoted and back
        let results = [
            queue.remove(2), !queue.remove(2), queue.setPriority(4, .high),
            queue.setPriority(1, .low), queue.setPriority(1, .normal), !queue.setPriority(99, .high),
        ]
        #expect(results == Array(repeating: true, count: 6))

        // Then each comes out once, in the right order
        #expect(queue.count == 3)
        // (1 went back to normal, where it keeps its first place)
        #expect(drain(&queue) == [4, 1, 3])
    }

    @Test("stays correct over many pushes and pops")
    func many() {
        // Given 10,000 transfers pushed and popped in waves
        var queue = PendingQueue(order: .fifo)
        var popped: [UInt64] = []
        for wave in UInt64(0)..<100 {
            for id in 0..<UInt64(100) { queue.push(wave * 100 + id, priority: .normal) }
            for _ in 0..<50 { if let id = queue.pop() { popped.append(id) } }
        }
        popped += drain(&queue)
        while let id = queue.pop() { popped.append(id) }

        // Then every one came out exactly once, in FIFO order
        #expect(popped == Array(0..<10_000))
    }
}
