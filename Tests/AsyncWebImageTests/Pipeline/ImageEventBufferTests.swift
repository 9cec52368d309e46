import Foundation
import Testing
@testable import AsyncWebImage

@Suite("ImageEventBuffer", .timeLimit(.minutes(1)))
struct ImageEventBufferTests {
    static let url = URL(string: "http://127.0.0.1/a.png")!

    static func image(_ value: UInt8, preview: Bool) -> Image {
        Image.make(width: 1, height: 1, pixelFormat: .gray8, isPreview: preview) { $0[0] = value }
    }

    static func describe(_ event: LoadEvent?) -> String {
        switch event {
        case .progress(let received, let expected)?: "progress \(received)/\(expected.map(String.init) ?? "?")"
        case .preview(let image)?: "preview \(image.pixels[0])"
        case .finished(let response)?: "finished \(response.image?.pixels[0] ?? 0)"
        case nil: "nil"
        }
    }

    static func drain(_ buffer: inout ImageEventBuffer) -> [String] {
        var out: [String] = []
        while let event = buffer.popFirst() { out.append(describe(event)) }
        return out
    }

    @Test("a slow consumer sees only the newest progress and preview")
    func coalesces() {
        // Given events produced faster than they are consumed
        var buffer = ImageEventBuffer()
        buffer.append(.progress(received: 10, expected: 100))
        buffer.append(.preview(Self.image(1, preview: true)))
        buffer.append(.progress(received: 50, expected: 100))
        buffer.append(.preview(Self.image(2, preview: true)))
        buffer.append(.progress(received: 90, expected: 100))
        // Then one progress and one preview wait, both the newest
        #expect(Self.drain(&buffer) == ["progress 90/100", "preview 2"])
    }

    @Test("a final response supersedes undelivered previews but keeps the last progress")
    func finalSupersedes() {
        var buffer = ImageEventBuffer()
        buffer.append(.progress(received: 10, expected: nil))
        buffer.append(.preview(Self.image(1, preview: true)))
        buffer.append(.progress(received: 100, expected: nil))
        buffer.append(.finished(LoadResult(image: Self.image(9, preview: false), data: nil, cacheType: .none, url: Self.url)))
        buffer.close(.finished)
        #expect(Self.drain(&buffer) == ["progress 100/?", "finished 9"])
        #expect(buffer.isClosed)
    }

    @Test("events after a final response queue behind it and are never merged into it")
    func twoFinals() {
        // Given the cached image, then a revalidation's progress and the new image (.refreshCached)
        var buffer = ImageEventBuffer()
        buffer.append(.finished(LoadResult(image: Self.image(1, preview: false), data: nil, cacheType: .disk, url: Self.url)))
        buffer.append(.progress(received: 5, expected: 10))
        buffer.append(.progress(received: 10, expected: 10))
        buffer.append(.finished(LoadResult(image: Self.image(2, preview: false), data: nil, cacheType: .none, url: Self.url)))
        #expect(Self.drain(&buffer) == ["finished 1", "progress 10/10", "finished 2"])
    }

    @Test("replacement only touches events after the last delivered one")
    func partialDrain() {
        var buffer = ImageEventBuffer()
        buffer.append(.finished(LoadResult(image: Self.image(1, preview: false), data: nil, cacheType: .disk, url: Self.url)))
        buffer.append(.progress(received: 1, expected: nil))
        #expect(Self.describe(buffer.popFirst()) == "finished 1")
        buffer.append(.progress(received: 2, expected: nil))
        #expect(Self.drain(&buffer) == ["progress 2/?"])
        buffer.cancel()
        buffer.append(.progress(received: 3, expected: nil))
        #expect(buffer.isEmpty)
    }

    @Test("the channel hands a waiting consumer the event directly and ends after the final one")
    func channel() async throws {
        let channel = ImageEventChannel()
        let consumer = Task { () -> [String] in
            var seen: [String] = []
            while let event = try await channel.next() { seen.append(Self.describe(event)) }
            return seen
        }
        channel.send(.progress(received: 1, expected: 2))
        channel.send(.finished(LoadResult(image: Self.image(7, preview: false), data: nil, cacheType: .none, url: Self.url)))
        channel.finish()
        let seen = try await consumer.value
        #expect(seen.last == "finished 7")
        #expect(seen.count <= 2)
    }

    @Test("cancelling the consumer terminates the producer and throws CancellationError")
    func cancellation() async throws {
        let channel = ImageEventChannel()
        let producerStopped = AsyncStream<Void>.makeStream()
        channel.onTermination { producerStopped.continuation.yield() }
        let consumer = Task { try await channel.next() }
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        var iterator = producerStopped.stream.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        // Later sends are dropped and the channel reports its end.
        channel.send(.progress(received: 1, expected: nil))
        #expect(try await channel.next() == nil)
    }

    @Test("a failure reaches the consumer after queued events")
    func failure() async throws {
        let channel = ImageEventChannel()
        channel.send(.progress(received: 3, expected: nil))
        channel.finish(throwing: ImageError.httpStatus(404))
        #expect(Self.describe(try await channel.next()) == "progress 3/?")
        await #expect(throws: ImageError.httpStatus(404)) { try await channel.next() }
        #expect(try await channel.next() == nil)
    }
}
