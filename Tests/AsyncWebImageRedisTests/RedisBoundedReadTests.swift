import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// Reads are bounded: a value over `maxValueBytes` is refused by its
/// announced length before any of it is buffered.
@Suite("RedisStore: bounded reads", .serialized, .timeLimit(.minutes(1)))
struct RedisBoundedReadTests {
    @Test("a 256 MiB value is a miss that costs under 16 MiB of RSS; the next read on the node works")
    func hugeValue() async throws {
        // Given a 256 MiB value under an entry's name (SETRANGE pads with
        // zeros inside Redis: the test never holds the value itself)
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.keyPrefix = "big:"
        // Redis itself takes a few hundred milliseconds to queue a 256 MiB
        // reply (it copies the value); past the default budget that read
        // would be a timeout, and this test is about the bound, not the time.
        configuration.lookupBudget = .seconds(5)
        let store = try RedisStore(configuration: configuration)
        try await store.setData(Data([1, 2, 3]), forKey: "small", extendedData: nil)
        let name = "big:{" + SHA256.hexDigest("huge") + "}:v"
        #expect(try await server.command(["SETRANGE", name, String((256 << 20) - 1), "x"]) == .integer(256 << 20))
        // When it is read
        ResidentMemory.resetPeak()
        let before = ResidentMemory.current
        let clock = ContinuousClock()
        let elapsed = await clock.measure { #expect(await store.data(forKey: "huge") == nil) }
        let peak = ResidentMemory.peak
        // Then the peak resident set grew by less than 16 MiB
        #expect(peak - before < 16 << 20, "RSS peak grew by \((peak - before) >> 10) KiB")
        #expect(elapsed < .seconds(5))
        let statistics = store.statistics
        #expect(statistics.oversizedReads == 1)
        // And the refusal is the value's fault, not the node's
        #expect(statistics.failures == 0 && statistics.breakerOpenings == 0)
        #expect(await store.data(forKey: "small") == Data([1, 2, 3]))
        print("RedisBoundedReadTests.hugeValue: 256 MiB value read as a miss in \(elapsed), RSS peak +\((peak - before) >> 10) KiB")
    }

    @Test("a value just over maxValueBytes is refused; one at the bound is read")
    func atTheBound() async throws {
        let server = try await RedisServer()
        var configuration = RedisStore.Configuration(endpoints: [server.endpoint])
        configuration.maxValueBytes = 2 << 20
        let store = try RedisStore(configuration: configuration)
        // An entry whose value is exactly the bound
        let key = "edge"
        let count = configuration.maxValueBytes - RedisCacheEntry.encodedCount(key: key, data: Data(), extendedData: nil)
        try await store.setData(Data(repeating: 9, count: count), forKey: key, extendedData: nil)
        #expect(await store.data(forKey: key)?.count == count)
        // The same value one byte longer, written behind the store's back
        let name = "awi:{" + SHA256.hexDigest(key) + "}:v"
        #expect(try await server.command(["APPEND", name, "x"]) == .integer(Int64(configuration.maxValueBytes + 1)))
        #expect(await store.data(forKey: key) == nil)
        #expect(store.statistics.oversizedReads == 1)
    }
}
